// `npm run bench`'s results (bench/results/<N>-queues.json) as a section of docs/performance.md:
// the figures its targets are about, computed from the raw figures the file holds.
import { table } from '../run/report.js';
import { fmtRatio, median, percentile } from '../run/util.js';
import { describe, type Provenance } from '../provenance.js';

interface Collector {
  name?: string;
  label: string;
  poll?: number;
  raw?: number;
  paths?: string[];
  error?: string;
}

export interface BrokerRunResults {
  provenance?: Provenance;
  settings: Record<string, unknown>;
  machine: { nproc: number; memory: string; cpuModel: string; node: string; rabbitmq: string; erlang: string; loadavg: string; commit: string };
  cpuAverageRound: number;
  cpuPerMinute: number;
  kbuddePerMinute: number;
  pluginPerMinute: number;
  cpuRuns: { kbudde: number[]; exporter: number[]; statsRound: number[] };
  perCollector: Collector[];
  scrapeMs: number[];
  pluginMs: number[];
  series: number;
  pluginSeries: number;
  rss: number;
  hwm: number;
}

const verdict = (ok: boolean) => (ok ? 'pass' : '**fail**');
const sec = (x: number) => `${x.toFixed(x >= 1 ? 2 : 4)} s`;
const ms = (x: number) => `${x.toFixed(1)} ms`;

export function brokerSection(r: BrokerRunResults, file: string): string[] {
  const m = r.machine;
  const kbuddeRound = median(r.cpuRuns.kbudde);
  const p99 = percentile(r.scrapeMs, 99);
  const plugin = median(r.pluginMs);
  const collectorRows = r.perCollector
    .filter((c) => c.poll !== undefined && c.raw !== undefined && (c.paths?.length ?? 0) > 0)
    .map((c) => [`poll duration, ${c.name ?? c.label} (alone, median)`, sec(c.poll!), `raw fetch of its ${c.paths!.length} path(s): ${sec(c.raw!)}`, fmtRatio(c.poll! / c.raw!), '≤ 1.2×', verdict(c.poll! / c.raw! <= 1.2)]);
  const settings = Object.entries(r.settings)
    .filter(([k]) => k !== 'resultsDir')
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');
  return [
    `From \`${file}\`, written by the benchmark:`,
    '',
    r.provenance
      ? `${describe(r.provenance)}\nRabbitMQ ${m.rabbitmq} (Erlang ${m.erlang}); the run's settings: ${settings}.`
      : `Commit ${m.commit}. Machine: ${m.nproc} × ${m.cpuModel}, ${m.memory}, Node ${m.node}, RabbitMQ ${m.rabbitmq} (Erlang ${m.erlang}); load average (1, 5, 15 min) ${m.loadavg} at the end. ` +
        `Written before the benchmarks recorded the command, the date and the load at the start in their results files: not recorded here (the run's settings: ${settings}).`,
    '',
    table(
      ['metric', 'measured', 'reference', 'ratio', 'target', 'result'],
      [
        ...collectorRows,
        ['broker CPU, one round of the default collectors fetching the queue statistics, bindings and memory breakdowns (1 in 4)', sec(median(r.cpuRuns.statsRound)), `kbudde-style round: ${sec(kbuddeRound)}`, fmtRatio(median(r.cpuRuns.statsRound) / kbuddeRound), '', 'info'],
        ['broker CPU, one round of the default collectors, counts-only queue lists (3 in 4)', sec(median(r.cpuRuns.exporter)), `kbudde-style round: ${sec(kbuddeRound)}`, fmtRatio(median(r.cpuRuns.exporter) / kbuddeRound), '', 'info'],
        ['broker CPU, one round of the default collectors averaged over the 4-poll cycle', sec(r.cpuAverageRound), `kbudde-style round (median of ${r.cpuRuns.kbudde.length}): ${sec(kbuddeRound)}`, fmtRatio(r.cpuAverageRound / kbuddeRound), '≤ 0.3×', verdict(r.cpuAverageRound / kbuddeRound <= 0.3)],
        ['broker CPU per minute, the exporter at every default (its requests replayed)', sec(r.cpuPerMinute), `kbudde-style every 15 s: ${sec(r.kbuddePerMinute)}`, fmtRatio(r.cpuPerMinute / r.kbuddePerMinute), '≤ 0.2×', verdict(r.cpuPerMinute / r.kbuddePerMinute <= 0.2)],
        ['broker CPU per minute, rabbitmq_prometheus `/metrics/per-object` every 15 s', sec(r.pluginPerMinute), `kbudde-style every 15 s: ${sec(r.kbuddePerMinute)}`, fmtRatio(r.pluginPerMinute / r.kbuddePerMinute), '', 'info'],
        [`/metrics p99 (${r.scrapeMs.length} scrapes, Prometheus headers)`, ms(p99), `per-object median: ${ms(plugin)}`, fmtRatio(p99 / plugin), '≤ 0.04× (1/25)', verdict(p99 <= plugin / 25)],
        ['exporter RSS, max over the default run', `${(r.rss / 1e6).toFixed(0)} MB (VmHWM ${(r.hwm / 1e6).toFixed(0)} MB)`, '', '', '≤ 200 MB', verdict(r.rss <= 200e6)],
        ['series on /metrics', r.series.toLocaleString('en'), `per-object: ${r.pluginSeries.toLocaleString('en')}`, fmtRatio(r.series / r.pluginSeries), '', 'info'],
      ],
    ),
    '',
  ];
}
