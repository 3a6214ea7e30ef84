// The comparisons: rabbitmq_prometheus's /metrics/per-object (phase 6), the broker's CPU per
// minute at the defaults against kbudde's round and the plugin every 15 s (6b), and the queue
// collector's other settings (7).
import { gunzipSync } from 'node:zlib';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { measureCollector, type FailedMeasurement, type MeasureContext, type Measurement } from './collector-alone.js';
import { startExporter, watchPolls } from './exporter-process.js';
import { baselineCpu, brokerCpuOf, countSeries, replay, scrape, type Scrape } from './measure.js';
import type { Collectors } from './rounds.js';
import { KBUDDE_PATHS, PROM_HEADERS, S } from './settings.js';
import type { Setup } from './setup.js';
import { log, median, sleep } from './util.js';

/** Seconds of background measured before and after each per-minute window. */
const BACKGROUND_S = 30;

export interface PerMinute {
  /** Background rates (CPU-s/s) taken off each window: the mean of those before and after it. */
  minuteBaseline: number;
  kbuddeBaseline: number;
  cpuPerMinute: number;
  kbuddePerMinute: number;
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
 * The exporter with every default (poll.interval 15s), measured over a window after its first
 * queue poll. The window holds the polls that start in it: a whole number of the queue
 * collector's cycles (stats_every polls at 2 × 15 s) holds its statistics polls in their true share.
 */
/**
 * The broker's CPU per minute, side by side over windows of the same length: the exporter at its
 * defaults, then kbudde's pattern (its four unfiltered lists, one after another, every 15 s). The
 * background (traffic, nobody polling) is measured before and after each window and averaged: over
 * a 240 s window an error of 0.03 CPU-s/s in it is 1.8 CPU-s per minute, as much as a tier saves.
 */
export async function measurePerMinute(ctx: MeasureContext, setup: Setup, workDir: string, statsEvery: number): Promise<PerMinute> {
  const queueCycleS = statsEvery * 15 * COLLECTORS.find((c) => c.name === 'queues')!.defaultIntervalMultiplier;
  if (S.minuteWindowS % queueCycleS !== 0) log(`  note: BENCH_MINUTE_WINDOW_S=${S.minuteWindowS} is not a multiple of the queue collector's ${queueCycleS} s cycle: the share of statistics polls in it is off`);
  log(`broker CPU per minute: the exporter at its defaults, ${S.minuteWindowS} s`);
  const before = await baselineCpu(setup.beamPid, BACKGROUND_S);
  const atDefaults = await startExporter('defaults', setup.broker.managementUrl, { poll: { interval: '15s' } }, workDir);
  let exporterGross: { gross: number; wall: number };
  try {
    await watchPolls(atDefaults, 'queues', 1, 10 * 60_000, 0);
    exporterGross = await brokerCpuOf(setup.beamPid, 0, () => sleep(S.minuteWindowS * 1000));
  } finally {
    await atDefaults.stop();
  }
  const between = await baselineCpu(setup.beamPid, BACKGROUND_S);
  log(`broker CPU per minute: kbudde's pattern every 15 s, ${S.minuteWindowS} s`);
  const kbuddeGross = await brokerCpuOf(setup.beamPid, 0, async () => {
    const end = Date.now() + S.minuteWindowS * 1000;
    for (let next = Date.now(); next < end; next += 15_000) {
      await sleep(Math.max(0, next - Date.now()));
      await replay(setup.seqPool, setup.api.auth, KBUDDE_PATHS, 1);
    }
    await sleep(Math.max(0, end - Date.now()));
  });
  const after = await baselineCpu(setup.beamPid, BACKGROUND_S);
  ctx.baseline = after;
  const perMinute = (r: { gross: number; wall: number }, background: number) => (Math.max(0, r.gross - background * r.wall) / r.wall) * 60;
  return {
    minuteBaseline: (before + between) / 2,
    kbuddeBaseline: (between + after) / 2,
    cpuPerMinute: perMinute(exporterGross, (before + between) / 2),
    kbuddePerMinute: perMinute(kbuddeGross, (between + after) / 2),
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
