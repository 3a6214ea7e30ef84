// The benchmark table in the storefront README, written from a results file (never by hand).

import { readFileSync, writeFileSync } from 'node:fs';

const BEGIN = '<!-- bench:put begin (written by npm run bench; do not edit) -->';
const END = '<!-- bench:put end -->';

/** One record count's run (bench/put.ts measures it). */
export interface SizeResult {
  records: number;
  /** Spawn to the "listening" line. */
  startupMs: number;
  rssAfterStartMiB: number;
  /** Peak RSS of the service over the whole run (VmHWM). */
  peakRssMiB: number;
  puts: number;
  concurrency: number;
  putsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  dbFileMiB: number;
  fillSeconds: number;
}

export interface ResultsFile {
  commit: string;
  date: string;
  command: string;
  machine: { cpu: string; cores: number; memoryGiB: number; kernel: string; node: string; fsync?: { p50Ms: number; p99Ms: number }; loadAverage1m?: { before: number; after: number } };
  results: SizeResult[];
}

export function renderTable(file: ResultsFile, source: string): string {
  const rows = file.results.map(
    (r) =>
      `| ${r.records.toLocaleString('en-US')} | ${r.startupMs} ms | ${r.putsPerSecond} | ${r.p50Ms} ms | ${r.p99Ms} ms | ${r.rssAfterStartMiB} MiB | ${r.peakRssMiB} MiB | ${r.dbFileMiB} MiB |`,
  );
  return [
    BEGIN,
    `From [\`${source}\`](${source}): commit ${file.commit}, ${file.date.slice(0, 10)}, \`${file.command}\`;`,
    `${file.machine.cores} × ${file.machine.cpu}, ${file.machine.memoryGiB} GiB, Linux ${file.machine.kernel}, Node ${file.machine.node}` +
      (file.machine.loadAverage1m === undefined
        ? '.'
        : `; load average (1 min) ${file.machine.loadAverage1m.before} before and ${file.machine.loadAverage1m.after} after the run (other work on the machine shows in the tail latencies).`),
    ...(file.machine.fsync === undefined
      ? []
      : [`The disk's floor under one durable write (4 KiB write + fdatasync): p50 ${file.machine.fsync.p50Ms} ms, p99 ${file.machine.fsync.p99Ms} ms; every PUT waits for at least one.`]),
    `${file.results[0]?.puts ?? 0} PUTs per size (after 200 warm-up), ${file.results[0]?.concurrency ?? 0} clients on keep-alive connections, random records, no password in the body.`,
    '',
    '| records | start-up | PUT/s | PUT p50 | PUT p99 | RSS after start | peak RSS | database |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    END,
  ].join('\n');
}

export function updateReadme(readmePath: string, file: ResultsFile, source: string): void {
  const text = readFileSync(readmePath, 'utf8');
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${readmePath} has no ${BEGIN} … ${END} section`);
  writeFileSync(readmePath, text.slice(0, a) + renderTable(file, source) + text.slice(b + END.length));
}
