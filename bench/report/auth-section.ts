// bench:auth's results as Markdown: auth.md, and its section of docs/performance.md.
import { table } from '../run/report.js';
import { percentile } from '../run/util.js';
import { provenanceOf, type LegacyRecord } from './legacy-provenance.js';

export interface AuthPhase {
  name: string;
  scrapeMs: number[];
  healthyMs: number[];
  failedScrapes: number;
  attackers?: Record<string, number>;
  attackSeconds?: number;
  exporterCpuSeconds: number;
}

export interface AuthResults extends LegacyRecord {
  /** Processes spinning at normal priority beside the exporter through every phase (absent: none). */
  busyCores?: number;
  phases: AuthPhase[];
}

const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : 'n/a');
const spread = (xs: number[]) => `${ms(percentile(xs, 50))} / ${ms(percentile(xs, 99))} / ${ms(Math.max(...xs))}`;

export function authSection(r: AuthResults, file: string): string[] {
  const quietP99 = percentile(r.phases[0]!.scrapeMs, 99);
  const rows = r.phases.map((p) => {
    const seconds = p.attackSeconds ?? 0;
    const answers = p.attackers ? Object.entries(p.attackers).map(([status, n]) => `${status}: ${n} (${(n / seconds).toFixed(0)}/s)`).join(', ') : '-';
    const p99 = percentile(p.scrapeMs, 99);
    return [p.name, `${spread(p.scrapeMs)} (${p.scrapeMs.length})`, `${(p99 / quietP99).toFixed(2)}×`, spread(p.healthyMs), p.failedScrapes, answers, `${p.exporterCpuSeconds.toFixed(1)} s`];
  });
  return [
    `From \`${file}\`, written by the benchmark:`,
    '',
    provenanceOf(r),
    '',
    r.busyCores ? `Beside the exporter, ${r.busyCores} other process(es) spinning at normal priority through every phase, quiet included.` : 'Nothing else kept busy on purpose.',
    '',
    table(['phase', 'authenticated /metrics p50 / p99 / max (n)', 'p99 / quiet p99', '/-/healthy p50 / p99 / max', 'scrapes failed', "attackers' answers (per second)", 'exporter CPU in the phase'], rows),
    '',
    `Target: authenticated \`/metrics\` p99 under attack within 2× of the quiet p99: ${rows.slice(1).map((row) => `${row[0]}: ${row[2]}`).join('; ')}.`,
    '',
  ];
}
