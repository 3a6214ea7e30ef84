// One collector alone: its recorded round of requests, its poll duration against a raw fetch of
// the same paths, and the broker's CPU for that round.
import type { Pool } from 'undici';
import type { BrokerHandle } from '../../test/harness/broker/broker.js';
import { type Poll, startExporter, startRecordingProxy, watchPolls } from './exporter-process.js';
import { brokerCpuOf, replay } from './measure.js';
import { EXPORTER_CONCURRENCY, S } from './settings.js';
import { median } from './util.js';

export interface RoundPath {
  path: string;
  status: number;
  bytes: number;
}

export interface Measurement {
  label: string;
  name: string;
  round: RoundPath[];
  paths: string[];
  bytes: number;
  statuses: number[];
  poll: number;
  cycle: number;
  polls: number;
  raw: number;
  cpu: number;
  samples: number | undefined;
  rss: number;
  error?: undefined;
}

export interface FailedMeasurement {
  label: string;
  name?: string;
  error: string;
}

export const measured = (r: Measurement | FailedMeasurement): r is Measurement => r.error === undefined;

export interface MeasureContext {
  broker: BrokerHandle;
  auth: string;
  pool: Pool;
  beamPid: number;
  /** The broker's background CPU rate, re-measured before each phase. */
  baseline: number;
  collectorNames: string[];
  workDir: string;
}

/** Settings that run one collector alone, back to back (interval 1 s, no jitter, long deadline). */
export function aloneSettings(collectorNames: string[], name: string, options: Record<string, unknown> = {}) {
  const collectors: Record<string, Record<string, unknown>> = {};
  for (const c of collectorNames) {
    if (c === name) collectors[c] = { ...options, enabled: true, interval: '1s', timeout: '5m' };
    // overview cannot be disabled (it decides rabbitmq_up): it polls once at start, then hourly.
    else if (c === 'overview') collectors[c] = { interval: '1h' };
    else collectors[c] = { enabled: false };
  }
  return { poll: { interval: S.pollInterval, jitter: 0 }, collectors };
}

/**
 * One round of a collector's requests: runs the exporter with only that collector, through the
 * recording proxy, and keeps the requests made during a poll after the first (the first one also
 * fetches /api/overview for the broker's version). Statuses other than 200 (an absent plugin's
 * 404) are kept: the exporter makes those requests too.
 */
async function recordRound(label: string, broker: BrokerHandle, settings: Record<string, unknown>, workDir: string, collector: string): Promise<RoundPath[]> {
  const proxy = await startRecordingProxy(broker.managementPort);
  const exp = await startExporter(`record-${label}`, `http://127.0.0.1:${proxy.port}`, settings, workDir);
  let prev: Poll | undefined;
  let poll: Poll | undefined;
  try {
    const polls = (await watchPolls(exp, collector, 2, 600_000, 0))[collector] ?? [];
    [prev, poll] = polls.slice(-2);
  } finally {
    await exp.stop();
    await proxy.close();
  }
  // The requests that started after the previous observed poll ended, up to the end of this one
  // (collector_duration_seconds does not cover the final rendering, so the window is end to end).
  // Should a poll have gone unobserved in between, its paths are the same ones: keep each once.
  if (!prev || !poll) throw new Error(`collector ${collector}: two polls watched, fewer seen`);
  const from = prev.end * 1000;
  const to = poll.end * 1000;
  const round = new Map<string, RoundPath>();
  for (const r of proxy.records) {
    if (r.start > from && r.start <= to && !round.has(r.path)) round.set(r.path, { path: r.path, status: r.status, bytes: r.bytes });
  }
  return [...round.values()];
}

/**
 * A collector alone: its round of paths (recorded), its poll duration (exporter straight to the
 * broker, median of `polls` after one warm-up), the same paths fetched raw, and the broker's CPU
 * for one round (net of the background).
 */
export async function measureCollector(ctx: MeasureContext, label: string, name: string, options: Record<string, unknown>, polls: number): Promise<Measurement> {
  const { broker, auth, pool, beamPid, collectorNames, workDir } = ctx;
  const settings = aloneSettings(collectorNames, name, options);
  const round = await recordRound(label, broker, settings, workDir, name);
  const paths = round.map((r) => r.path);
  const e = await startExporter(label, broker.managementUrl, settings, workDir);
  let list: Poll[];
  try {
    list = (await watchPolls(e, name, polls, (polls + 2) * 300_000))[name] ?? [];
  } finally {
    await e.stop();
  }
  const raw: number[] = [];
  const cpu: number[] = [];
  if (paths.length > 0) {
    await replay(pool, auth, paths, EXPORTER_CONCURRENCY); // warm-up
    for (let i = 0; i < S.repeats; i++) {
      const r = await brokerCpuOf(beamPid, ctx.baseline, () => replay(pool, auth, paths, EXPORTER_CONCURRENCY));
      raw.push(r.result.seconds);
      cpu.push(r.net);
    }
  }
  return {
    label,
    name,
    round,
    paths,
    bytes: round.reduce((n, r) => n + r.bytes, 0),
    statuses: [...new Set(round.map((r) => r.status))],
    poll: median(list.map((p) => p.duration)),
    // End to end, start to start: polls longer than the 1 s interval run back to back.
    cycle: median(list.slice(1).map((p, i) => p.end - list[i]!.end)),
    polls: list.length,
    raw: paths.length > 0 ? median(raw) : 0,
    cpu: paths.length > 0 ? median(cpu) : 0,
    samples: list.at(-1)?.samples,
    rss: e.maxRss,
  };
}
