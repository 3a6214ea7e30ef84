/**
 * rabbitmq-exporter benchmark (`npm run bench`): one run, one table. Phases, one file each:
 *
 *  1. setup.ts: a PRIVATE RabbitMQ node (test/harness/broker/broker.ts, the tests' harness) with
 *     rabbitmq_management and rabbitmq_prometheus only; never touches another broker on the
 *     machine; the state over AMQP (many channels in parallel): vhosts, queues (about 2% quorum),
 *     topic exchanges, bindings, then publishers and consumers (manual acks) at a steady rate;
 *  2. rounds.ts: every default collector alone (`interval: 1s`, collector-alone.ts): the paths of
 *     one poll, recorded by a small proxy in front of the broker; its poll duration
 *     (`rabbitmq_exporter_collector_duration_seconds`, straight to the broker) against a raw fetch
 *     of the same paths (undici, same concurrency, bodies read, not parsed); the broker's CPU
 *     (beam.smp utime+stime from /proc, net of the background); the queue collector's statistics
 *     poll (one in stats_every) apart from its counts-only poll; the broker's CPU for one round
 *     of all those paths against kbudde/rabbitmq_exporter's four unfiltered lists, and per path;
 *  3. exporter-defaults.ts: with every default (poll.interval BENCH_POLL_INTERVAL): /metrics
 *     latency over BENCH_SCRAPES scrapes with Prometheus's headers, and the first scrape after each
 *     new snapshot; RSS (max of VmRSS), Node memory, series, bytes, `promtool check metrics`;
 *  4. alternatives.ts: rabbitmq_prometheus's /metrics/per-object; the broker's CPU per minute with
 *     the exporter at every default (poll.interval 15s, no jitter): the requests it made over
 *     BENCH_MINUTE_WINDOW_S, recorded and replayed back to back, per minute, next to 4 × kbudde's
 *     round and /metrics/per-object every 15 s (the live window net of its background for
 *     reference); (BENCH_ALTERNATIVES=1) the queue collector's other settings: modes, per_vhost,
 *     details, message_stats, paging;
 *  5. results.ts: prints the tables, writes them to bench/results/latest.md and
 *     bench/results/<N>-queues.md (+ .json).
 * Everything started is stopped (util.ts cleanup), also on failure, Ctrl-C or the overall timeout.
 *
 * Sizes and knobs (environment, settings.ts): BENCH_QUEUES (10000), BENCH_VHOSTS (10),
 * BENCH_QUORUM_PERCENT (2), BENCH_EXCHANGES (300), BENCH_BINDINGS (5000), BENCH_ACTIVE_QUEUES (500:
 * queues with traffic), BENCH_PUBLISHERS (20), BENCH_CONSUMERS (20) (AMQP connections), BENCH_RATE
 * (500 msg/s in total), BENCH_POLL_INTERVAL (5s: poll.interval of the main run; queues poll every
 * 2 x that), BENCH_POLLS (5: measured polls per collector after one warm-up), BENCH_SCRAPES (200),
 * BENCH_REPEATS (5), BENCH_SETUP_CHANNELS (8 AMQP channels per vhost declaring in parallel),
 * BENCH_STATS_INTERVAL_MS (5000: the broker's collect_statistics_interval, RabbitMQ's default),
 * BENCH_ALTERNATIVES (1), BENCH_TIMEOUT_MIN (45), BENCH_RESULTS_DIR (bench/results),
 * BENCH_MINUTE_WINDOW_S (240: how long the broker's CPU is measured with the exporter at its
 * defaults; a multiple of the queue collector's cycle, stats_every × 30 s = 120 s).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { measurePerMinute, measurePlugin, measureQueueSettings } from './alternatives.js';
import type { MeasureContext } from './collector-alone.js';
import { measureAtDefaults } from './exporter-defaults.js';
import { exporterCommit } from './report.js';
import { writeResults } from './results.js';
import { HELD_PARTS, measureEachCollector, measureRounds } from './rounds.js';
import { EXPORTER_MAIN, S } from './settings.js';
import { startRun } from '../provenance.js';
import { setUp } from './setup.js';
import { cleanup, log, median, now, onCleanup } from './util.js';

async function main(): Promise<void> {
  const t0 = now();
  const run = startRun();
  const commit = exporterCommit();
  const loadAtStart = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  if (!fs.existsSync(EXPORTER_MAIN)) throw new Error(`${EXPORTER_MAIN} is missing: run npm run build`);
  const collectorNames = COLLECTORS.map((c) => c.name);
  const queues = COLLECTORS.find((c) => c.name === 'queues')!;
  const statsEvery = (queues.optionsSchema!.parse({}) as { stats_every: number }).stats_every;
  if (!(statsEvery >= 1)) throw new Error(`the queue collector's default stats_every is ${statsEvery}: the averaged round needs statistics polls`);
  // The averaged round assumes every held part shares the queue statistics' cycle.
  for (const { collector, everyPoll } of HELD_PARTS) {
    const [key] = Object.keys(everyPoll) as [string];
    const every = (COLLECTORS.find((c) => c.name === collector)!.optionsSchema!.parse({}) as Record<string, number>)[key];
    if (every !== statsEvery) throw new Error(`collectors.${collector}.${key} defaults to ${every}, not stats_every (${statsEvery}): the averaged round would be wrong`);
  }
  const defaultCollectors = COLLECTORS.filter((c) => c.defaultEnabled).map((c) => c.name);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqexp-bench-'));
  onCleanup(() => {
    if (process.env.KEEP_BENCH_DIR !== '1') fs.rmSync(workDir, { recursive: true, force: true });
  });
  log(`settings: ${JSON.stringify({ ...S, resultsDir: undefined })}`);
  log(`collectors enabled by default: ${defaultCollectors.join(', ')}`);

  const setup = await setUp();
  const ctx: MeasureContext = { broker: setup.broker, auth: setup.api.auth, pool: setup.pool, beamPid: setup.beamPid, baseline: setup.baseline, collectorNames, workDir };
  const collectors = await measureEachCollector(ctx, defaultCollectors);
  const rounds = await measureRounds(ctx, setup, collectors, statsEvery);
  const atDefaults = await measureAtDefaults(setup, workDir);
  const plugin = await measurePlugin(ctx, setup);
  const perMinute = await measurePerMinute(ctx, setup, workDir, statsEvery, rounds.cpuKbudde);
  log(`broker CPU per minute: exporter ${perMinute.cpuPerMinute.toFixed(2)} s, kbudde-style at 15 s ${perMinute.kbuddePerMinute.toFixed(2)} s, per-object at 15 s ${(median(plugin.pluginCpu) * 4).toFixed(2)} s`);
  const alternatives = await measureQueueSettings(ctx, setup, collectors, statsEvery);
  writeResults({ provenance: run.finish(), commit, loadAtStart, totalSeconds: (now() - t0) / 1000, statsEvery, setup, collectors, rounds, atDefaults, plugin, perMinute, alternatives, lastBaseline: ctx.baseline });
}

const overall = setTimeout(() => {
  log(`overall timeout of ${S.timeoutMin} min: stopping`);
  void cleanup().finally(() => process.exit(1));
}, S.timeoutMin * 60_000);
overall.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping everything`);
    void cleanup().finally(() => process.exit(130));
  });
}

main().then(
  async () => {
    await cleanup();
    clearTimeout(overall);
    process.exit(0);
  },
  async (error: unknown) => {
    log('FAILED:', (error as Error)?.stack ?? error);
    await cleanup();
    process.exit(1);
  },
);
