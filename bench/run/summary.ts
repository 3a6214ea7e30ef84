// The summary table of a run: each measured figure next to its reference, ratio and target.
import { measured } from './collector-alone.js';
import type { RunResults } from './run-results.js';
import { S } from './settings.js';
import { fmtBytes, fmtInt, fmtMs, fmtRatio, fmtS, median, percentile } from './util.js';

type Row = (string | number)[];

const pf = (ok: boolean) => (ok ? 'pass' : '**fail**');

export function summaryRows(run: RunResults): Row[] {
  return [...setupRows(run), ...pollRows(run), ...brokerCpuRows(run), ...scrapeRows(run), ...memoryRows(run), ...exposureRows(run)];
}

function setupRows({ setup: { setupSeconds, declareSeconds } }: RunResults): Row[] {
  return [['set-up: vhosts, queues, exchanges, bindings, traffic', fmtS(setupSeconds), `of which AMQP declarations ${fmtS(declareSeconds)}`, '', '', 'info']];
}

/** Each collector's poll against the raw fetch of its paths. */
function pollRows(run: RunResults): Row[] {
  const { perCollector } = run.collectors;
  const { queuesInContext } = run.atDefaults;
  const queuesDefault = run.collectors.measured.find((r) => r.name === 'queues');
  const rows: Row[] = [];
  for (const r of perCollector) {
    if (!measured(r)) {
      rows.push([`poll duration, ${r.name ?? r.label}`, `failed: ${r.error}`, '', '', '≤ 1.2×', '**fail**']);
      continue;
    }
    const ratio = r.raw > 0 ? r.poll / r.raw : NaN;
    rows.push([
      `poll duration, ${r.name} (alone, median of ${r.polls})`,
      fmtS(r.poll),
      `raw fetch of its ${r.paths.length} path${r.paths.length === 1 ? '' : 's'}: ${fmtS(r.raw)}`,
      `${fmtRatio(ratio)} (${r.poll >= r.raw ? '+' : '−'}${fmtMs(Math.abs(r.poll - r.raw) * 1000)})`,
      '≤ 1.2×',
      r.paths.length === 0 ? 'n/a (no requests)' : pf(ratio <= 1.2),
    ]);
  }
  if (queuesDefault) {
    rows.push(['poll duration, queues, all collectors running (median of 2)', fmtS(queuesInContext), `alone: ${fmtS(queuesDefault.poll)}`, fmtRatio(queuesInContext / queuesDefault.poll), '', 'info']);
  }
  return rows;
}

/** Broker CPU of the exporter's rounds against a kbudde-style round and the plugin. */
function brokerCpuRows(run: RunResults): Row[] {
  const { statsEvery } = run;
  const measuredCollectors = run.collectors.measured;
  const { roundPaths, roundBytes, subsetPaths, statsRoundPaths, kbuddeBytes, kbuddeWall, cpuExporter, cpuSubset, cpuKbudde, cpuStatsRound, cpuAverageRound } = run.rounds;
  const { pluginCpu } = run.plugin;
  const { cpuPerMinute, kbuddePerMinute, requests, bytes, replayNet, liveBackground, livePerMinute } = run.perMinute;
  const pluginPerMinute = median(pluginCpu) * 4;
  const rows: Row[] = [];
  if (cpuAverageRound !== undefined) {
    rows.push([
      `broker CPU, one round of all ${measuredCollectors.length} default collectors, averaged over the ${statsEvery}-poll cycle (${statsEvery - 1} counts-only + 1 fetching queue statistics, bindings and memory breakdowns)`,
      `${cpuAverageRound.toFixed(3)} s`,
      `kbudde-style round: ${cpuKbudde.toFixed(3)} s (4 unfiltered lists, ${fmtBytes(kbuddeBytes)}, ${fmtS(median(kbuddeWall))} wall)`,
      fmtRatio(cpuAverageRound / cpuKbudde),
      '≤ 0.3×',
      pf(cpuAverageRound / cpuKbudde <= 0.3),
    ]);
    rows.push([
      `broker CPU, the same round when the held parts are fetched: queue statistics, /api/bindings, node memory breakdowns (1 poll of ${statsEvery}; every poll before the tiers; median of ${S.repeats}, net)`,
      `${cpuStatsRound!.toFixed(3)} s (${statsRoundPaths!.length} requests)`,
      `kbudde-style round: ${cpuKbudde.toFixed(3)} s`,
      fmtRatio(cpuStatsRound! / cpuKbudde),
      '',
      'info',
    ]);
  }
  rows.push([
    `broker CPU, the same round with a counts-only queue poll and the held parts not fetched (${statsEvery - 1} polls of ${statsEvery}; median of ${S.repeats}, net)`,
    `${cpuExporter.toFixed(3)} s (${roundPaths.length} requests, ${fmtBytes(roundBytes)})`,
    `kbudde-style round: ${cpuKbudde.toFixed(3)} s`,
    fmtRatio(cpuExporter / cpuKbudde),
    '',
    'info',
  ]);
  rows.push([
    `broker CPU per minute, the exporter with every default (poll.interval 15s): the ${requests} requests (${fmtBytes(bytes)}) it made over ${S.minuteWindowS} s, replayed back to back (median of ${replayNet.length}, net), per minute`,
    `${cpuPerMinute.toFixed(2)} s`,
    `kbudde-style round every 15 s: ${kbuddePerMinute.toFixed(2)} s (4 × ${cpuKbudde.toFixed(3)} s)`,
    fmtRatio(cpuPerMinute / kbuddePerMinute),
    '≤ 0.2×',
    pf(cpuPerMinute / kbuddePerMinute <= 0.2),
  ]);
  rows.push([
    `broker CPU per minute, the same ${S.minuteWindowS} s measured live, net of the background (${liveBackground.toFixed(3)} CPU-s/s; ±0.03 CPU-s/s of drift is ±1.8 s here)`,
    `${livePerMinute.toFixed(2)} s`,
    `kbudde-style: ${kbuddePerMinute.toFixed(2)} s`,
    fmtRatio(livePerMinute / kbuddePerMinute),
    '',
    'info',
  ]);
  rows.push([
    'broker CPU per minute, rabbitmq_prometheus /metrics/per-object every 15 s',
    `${pluginPerMinute.toFixed(2)} s (4 × ${median(pluginCpu).toFixed(3)} s per scrape)`,
    `kbudde-style: ${kbuddePerMinute.toFixed(2)} s`,
    fmtRatio(pluginPerMinute / kbuddePerMinute),
    '',
    'info',
  ]);
  rows.push([
    'broker CPU, same round, only overview + nodes + queues + exchanges',
    `${cpuSubset.toFixed(3)} s (${subsetPaths.length} requests)`,
    `kbudde-style round: ${cpuKbudde.toFixed(3)} s`,
    fmtRatio(cpuSubset / cpuKbudde),
    '',
    'info',
  ]);
  return rows;
}

/** /metrics latency against the plugin's per-object scrape. */
function scrapeRows(run: RunResults): Row[] {
  const { scrapeMs, coldMs } = run.atDefaults;
  const { pluginMedian } = run.plugin;
  const rows: Row[] = [];
  const p50 = percentile(scrapeMs, 50);
  const p99 = percentile(scrapeMs, 99);
  rows.push([`/metrics latency p50 (${scrapeMs.length} scrapes, Prometheus headers)`, fmtMs(p50), `per-object median: ${fmtMs(pluginMedian)}`, fmtRatio(p50 / pluginMedian), '', 'info']);
  rows.push([`/metrics latency p99 (${scrapeMs.length} scrapes, Prometheus headers)`, fmtMs(p99), `per-object median: ${fmtMs(pluginMedian)}`, fmtRatio(p99 / pluginMedian), '≤ 0.04× (1/25)', pf(p99 <= pluginMedian / 25)]);
  if (coldMs.length > 0) {
    const c = median(coldMs);
    rows.push([`/metrics, first scrape after a new snapshot (median of ${coldMs.length})`, fmtMs(c), `per-object median: ${fmtMs(pluginMedian)}`, fmtRatio(c / pluginMedian), '', c <= pluginMedian / 25 ? 'info (within 1/25)' : 'info (over 1/25)']);
  }
  return rows;
}

/** The exporter's memory. */
function memoryRows(run: RunResults): Row[] {
  const { rss, hwm, memoryMax } = run.atDefaults;
  const rows: Row[] = [];
  rows.push(['exporter RSS, max over the default run', `${(rss / 1e6).toFixed(0)} MB (VmHWM ${(hwm / 1e6).toFixed(0)} MB)`, '', '', '≤ 200 MB', pf(rss <= 200e6)]);
  const mem = memoryMax;
  if (Object.keys(mem).length > 0) {
    const mb = (k: string) => (mem[k] === undefined ? 'n/a' : `${(mem[k]! / 1e6).toFixed(0)} MB`);
    rows.push([
      'exporter memory at its snapshots (max): V8 heap total / used, external (Buffers)',
      `${mb('nodejs_heap_size_total_bytes')} / ${mb('nodejs_heap_size_used_bytes')}, ${mb('nodejs_external_memory_bytes')}`,
      `RSS then: ${mb('process_resident_memory_bytes')}`,
      '',
      '',
      'info',
    ]);
  }
  const maxAltRss = Math.max(0, ...run.alternatives.filter(measured).map((a) => a.rss));
  if (maxAltRss > 0) rows.push(['exporter RSS, max over the queue-collector runs', `${(maxAltRss / 1e6).toFixed(0)} MB`, '', '', '', 'info']);
  return rows;
}

/** What /metrics serves against the plugin, the exporter's own CPU, and promtool's verdict. */
function exposureRows(run: RunResults): Row[] {
  const { expCpuPerMin, served, textScrape, series, promtool } = run.atDefaults;
  const { pluginBody, pluginText, pluginSeries } = run.plugin;
  const rows: Row[] = [];
  rows.push(['series on /metrics', fmtInt(series), `per-object: ${fmtInt(pluginSeries)}`, fmtRatio(series / pluginSeries), '', 'info']);
  rows.push(['/metrics body, text format, uncompressed', fmtBytes(textScrape.body.length), `per-object: ${fmtBytes(pluginText.length)}`, fmtRatio(textScrape.body.length / pluginText.length), '', 'info']);
  rows.push([
    `/metrics body as served to Prometheus (${served?.contentType?.split(';')[0] ?? '?'}, ${served?.encoding ?? 'identity'})`,
    fmtBytes(served?.body.length),
    `per-object (${pluginBody.encoding ?? 'identity'}): ${fmtBytes(pluginBody.body.length)}`,
    fmtRatio((served?.body.length ?? NaN) / pluginBody.body.length),
    '',
    'info',
  ]);
  rows.push(['exporter CPU, default run', `${expCpuPerMin.toFixed(1)} CPU-s per minute`, '', '', '', 'info']);
  rows.push([
    '`promtool check metrics` on the whole text exposition',
    promtool.ok ? 'ok' : promtool.output.trim().split('\n').slice(0, 3).join('; ').slice(0, 300) || 'failed',
    '',
    '',
    'ok',
    pf(promtool.ok),
  ]);

  return rows;
}
