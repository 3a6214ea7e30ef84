// The comparisons: rabbitmq_prometheus's /metrics/per-object (phase 6), the broker's CPU per
// minute at the defaults against kbudde's round and the plugin every 15 s (6b), and the queue
// collector's other settings (7).
import { gunzipSync } from 'node:zlib';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { measureCollector, type FailedMeasurement, type MeasureContext, type Measurement } from './collector-alone.js';
import { startExporter, startRecordingProxy, watchPolls } from './exporter-process.js';
import { baselineCpu, brokerCpuOf, countSeries, replay, scrape, type Scrape } from './measure.js';
import type { Collectors } from './rounds.js';
import { EXPORTER_CONCURRENCY, PROM_HEADERS, S } from './settings.js';
import type { Setup } from './setup.js';
import { log, median, sleep } from './util.js';

/** Seconds of background measured before and after each per-minute window. */
const BACKGROUND_S = 30;

export interface PerMinute {
  /** The live exporter's requests in the window. */
  requests: number;
  bytes: number;
  /** Net broker CPU-s of those requests replayed back to back, each time. */
  replayNet: number[];
  cpuPerMinute: number;
  /** kbudde's pattern every 15 s: 4 × its round. */
  kbuddePerMinute: number;
  /** The live window, net of the mean background before and after it (CPU-s/s): for reference. */
  liveBackground: number;
  livePerMinute: number;
}

export interface Plugin {
  pluginMs: number[];
  pluginPlainMs: number[];
  pluginCpu: number[];
  pluginBody: Scrape;
  pluginText: Buffer;
  pluginSeries: number;
  pluginMedian: number;
}

export async function measurePlugin(ctx: MeasureContext, setup: Setup): Promise<Plugin> {
  log('rabbitmq_prometheus /metrics/per-object');
  const url = `${setup.broker.prometheusUrl}/metrics/per-object`;
  const pluginMs: number[] = [];
  const pluginPlainMs: number[] = [];
  const pluginCpu: number[] = [];
  let pluginBody: Scrape | undefined;
  for (let i = 0; i < Math.max(3, Math.min(5, S.repeats)); i++) {
    const r = await brokerCpuOf(setup.beamPid, ctx.baseline, () => scrape(url, PROM_HEADERS));
    pluginMs.push(r.result.ms);
    pluginCpu.push(r.net);
    pluginBody = r.result;
    pluginPlainMs.push((await scrape(url, {})).ms);
  }
  const body = pluginBody!;
  const pluginText = body.encoding === 'gzip' ? gunzipSync(body.body) : body.body;
  return { pluginMs, pluginPlainMs, pluginCpu, pluginBody: body, pluginText, pluginSeries: countSeries(pluginText.toString('utf8')), pluginMedian: median(pluginMs) };
}

/**
 * The broker's CPU per minute with the exporter at every default (`poll.interval: 15s`): the
 * requests it made over a window of whole queue cycles (through the recording proxy), replayed
 * back to back, median of 3, scaled to a minute; next to kbudde's pattern every 15 s (4 × its
 * round, replayed the same way). Replayed, not measured live: over a 240 s window the broker's
 * background (traffic, statistics) is 30-100 CPU-s and drifts by ±0.03 CPU-s/s between windows,
 * so "live minus background" scatters by ±2 CPU-s per minute, as much as the whole signal
 * (bench:live, docs/performance.md); replayed at their live moments the same requests cost what
 * they cost back to back. The live window net of its background is kept for reference.
 */
export async function measurePerMinute(ctx: MeasureContext, setup: Setup, workDir: string, statsEvery: number, kbuddeRound: number): Promise<PerMinute> {
  const queueCycleS = statsEvery * 15 * COLLECTORS.find((c) => c.name === 'queues')!.defaultIntervalMultiplier;
  if (S.minuteWindowS % queueCycleS !== 0) log(`  note: BENCH_MINUTE_WINDOW_S=${S.minuteWindowS} is not a multiple of the queue collector's ${queueCycleS} s cycle: the share of statistics polls in it is off`);
  log(`broker CPU per minute: the exporter at its defaults, ${S.minuteWindowS} s, its requests recorded`);
  const before = await baselineCpu(setup.beamPid, BACKGROUND_S);
  const proxy = await startRecordingProxy(Number(new URL(setup.broker.managementUrl).port));
  // No jitter: the window then holds exactly its whole cycles (the default's ±10% only moves polls).
  const atDefaults = await startExporter('defaults', `http://127.0.0.1:${proxy.port}`, { poll: { interval: '15s', jitter: 0 } }, workDir);
  let live: { gross: number; wall: number };
  let windowStart = 0;
  try {
    await watchPolls(atDefaults, 'queues', 1, 10 * 60_000, 0);
    windowStart = Date.now();
    live = await brokerCpuOf(setup.beamPid, 0, () => sleep(S.minuteWindowS * 1000));
  } finally {
    await atDefaults.stop();
    await proxy.close();
  }
  const windowEnd = windowStart + S.minuteWindowS * 1000;
  const requests = proxy.records.filter((r) => r.start >= windowStart && r.start < windowEnd);
  const after = await baselineCpu(setup.beamPid, BACKGROUND_S);
  ctx.baseline = after;
  log(`  replaying its ${requests.length} requests back to back, 3 times`);
  const paths = requests.map((r) => r.path);
  const replayNet: number[] = [];
  for (let i = 0; i < 3; i++) replayNet.push((await brokerCpuOf(setup.beamPid, ctx.baseline, () => replay(setup.pool, setup.api.auth, paths, EXPORTER_CONCURRENCY))).net);
  const toMinute = (cpu: number) => (cpu / S.minuteWindowS) * 60;
  const liveBackground = (before + after) / 2;
  return {
    requests: requests.length,
    bytes: requests.reduce((n, r) => n + r.bytes, 0),
    replayNet,
    cpuPerMinute: toMinute(median(replayNet)),
    kbuddePerMinute: kbuddeRound * 4,
    liveBackground,
    livePerMinute: toMinute(Math.max(0, live.gross - liveBackground * live.wall)),
  };
}

const QUEUE_VARIANTS: { label: string; options: Record<string, unknown> }[] = [
  { label: 'columns, per_vhost false, stats_every 1', options: { mode: 'columns', per_vhost: false, stats_every: 1 } },
  { label: 'auto, details false, stats_every 1', options: { details: false, stats_every: 1 } },
  { label: 'auto, message_stats false, stats_every 1', options: { message_stats: false, stats_every: 1 } },
  { label: 'totals, per_vhost true', options: { mode: 'totals', per_vhost: true } },
  { label: 'totals, per_vhost false', options: { mode: 'totals', per_vhost: false } },
  { label: 'full, per_vhost true, stats_every 1', options: { mode: 'full', per_vhost: true, stats_every: 1 } },
  { label: 'full, per_vhost false, stats_every 1', options: { mode: 'full', per_vhost: false, stats_every: 1 } },
  { label: 'columns, per_vhost false, page_size 500, stats_every 1', options: { mode: 'columns', per_vhost: false, page_size: 500, stats_every: 1 } },
];

/** The default queue polls, then (BENCH_ALTERNATIVES=1) the queue collector's other settings. */
export async function measureQueueSettings(ctx: MeasureContext, setup: Setup, collectors: Collectors, statsEvery: number): Promise<(Measurement | FailedMeasurement)[]> {
  const alternatives: (Measurement | FailedMeasurement)[] = [];
  const queuesDefault = collectors.measured.find((r) => r.name === 'queues');
  if (queuesDefault) alternatives.push({ ...queuesDefault, label: `auto (default), counts-only poll (${statsEvery - 1} of ${statsEvery})` });
  if (collectors.queuesStats) alternatives.push({ ...collectors.queuesStats, label: `auto (default), statistics poll (1 of ${statsEvery}); stats_every 1: every poll` });
  if (!S.alternatives) return alternatives;
  ctx.baseline = await baselineCpu(setup.beamPid, 10);
  for (const v of QUEUE_VARIANTS) {
    log(`queues: ${v.label}`);
    try {
      alternatives.push(await measureCollector(ctx, `queues ${v.label}`, 'queues', v.options, Math.min(S.polls, 3)));
    } catch (error) {
      const message = (error as Error).message.split('\n')[0]!;
      log(`  failed: ${message}`);
      alternatives.push({ label: v.label, error: message });
    }
  }
  for (const a of alternatives) if (!a.error) a.label = a.label.replace(/^queues /, '');
  return alternatives;
}
