// The comparisons: rabbitmq_prometheus's /metrics/per-object (phase 6), the broker's CPU per
// minute at the defaults against kbudde's round and the plugin every 15 s (6b), and the queue
// collector's other settings (7).
import { gunzipSync } from 'node:zlib';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { measureCollector, type FailedMeasurement, type MeasureContext, type Measurement } from './collector-alone.js';
import { startExporter, watchPolls } from './exporter-process.js';
import { baselineCpu, brokerCpuOf, countSeries, scrape, type Scrape } from './measure.js';
import type { Collectors } from './rounds.js';
import { PROM_HEADERS, S } from './settings.js';
import type { Setup } from './setup.js';
import { log, median, sleep } from './util.js';

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
export async function measurePerMinute(ctx: MeasureContext, setup: Setup, workDir: string, statsEvery: number): Promise<{ minuteBaseline: number; cpuPerMinute: number }> {
  const queueCycleS = statsEvery * 15 * COLLECTORS.find((c) => c.name === 'queues')!.defaultIntervalMultiplier;
  if (S.minuteWindowS % queueCycleS !== 0) log(`  note: BENCH_MINUTE_WINDOW_S=${S.minuteWindowS} is not a multiple of the queue collector's ${queueCycleS} s cycle: the share of statistics polls in it is off`);
  log(`broker CPU per minute: the exporter at its defaults, ${S.minuteWindowS} s`);
  ctx.baseline = await baselineCpu(setup.beamPid, 10);
  const minuteBaseline = ctx.baseline;
  const atDefaults = await startExporter('defaults', setup.broker.managementUrl, { poll: { interval: '15s' } }, workDir);
  try {
    await watchPolls(atDefaults, 'queues', 1, 10 * 60_000, 0);
    const r = await brokerCpuOf(setup.beamPid, ctx.baseline, () => sleep(S.minuteWindowS * 1000));
    return { minuteBaseline, cpuPerMinute: (r.net / r.wall) * 60 };
  } finally {
    await atDefaults.stop();
  }
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
