// bench:fleet's results as Markdown: fleet.md, and its section of docs/performance.md.
import { table } from '../run/report.js';
import { provenanceOf, type LegacyRecord } from './legacy-provenance.js';

export interface FleetRun {
  targets: number;
  listenSeconds: number;
  readySeconds: number;
  /** `failed`: probes without an answer while the exporter was meant to serve (before SIGTERM); `failures`: every probe without one, with its error. */
  healthy: {
    n: number;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    over100: number;
    failed: number;
    /** Each probe over 100 ms and when it was asked. */
    slow?: { ms: number; sinceSpawnSeconds: number }[];
    failures?: { error: string; sinceSpawnSeconds: number; afterSigterm: boolean; sinceSigtermMs: number | null }[];
  };
  rssPeakBytes: number;
  hwmBytes: number;
  rssSteadyBytes: number;
  reloadSeconds: number;
  reloadStatus: number;
  notFoundBytes: number;
  sigtermSeconds: number;
  exitCode: number | null;
}

export interface FleetResults extends LegacyRecord {
  intervalSeconds: number;
  perTargetBytes: number;
  runs: FleetRun[];
}

const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`;
const s = (x: number) => `${x.toFixed(2)} s`;
const ms = (x: number) => `${x.toFixed(0)} ms`;

/** Probes that got no answer once SIGTERM was sent (shutdown, not counted as failed), by error. */
function afterSigterm(run: FleetRun): string {
  const late = (run.healthy.failures ?? []).filter((f) => f.afterSigterm);
  return late.length === 0 ? '' : `; ${late.length} after SIGTERM: ${[...new Set(late.map((f) => f.error))].join(', ')}`;
}

/** How many of the probes over 100 ms were asked before /-/ready (start-up), when the run says. */
function beforeReady(run: FleetRun): string {
  if (!run.healthy.slow || run.healthy.over100 === 0) return '';
  return ` (${run.healthy.slow.filter((p) => p.sinceSpawnSeconds < run.readySeconds).length} before /-/ready)`;
}

export function fleetSection(r: FleetResults, file: string): string[] {
  const rows = r.runs.map((run) => [
    run.targets.toLocaleString('en'),
    s(run.listenSeconds),
    s(run.readySeconds),
    `${ms(run.healthy.p50Ms)} / ${ms(run.healthy.p99Ms)} / ${ms(run.healthy.maxMs)} (${run.healthy.n}; ${run.healthy.over100} over 100 ms${beforeReady(run)}, ${run.healthy.failed} failed${afterSigterm(run)})`,
    mb(run.rssPeakBytes),
    mb(run.rssSteadyBytes),
    `${s(run.reloadSeconds)} (${run.reloadStatus})`,
    `${run.notFoundBytes} B`,
    `${s(run.sigtermSeconds)} (exit ${run.exitCode})`,
  ]);
  const [one, fleet] = [r.runs[0]!, r.runs.at(-1)!];
  return [
    `From \`${file}\`, written by the benchmark:`,
    '',
    provenanceOf(r),
    '',
    `Targets on an unreachable loopback port (every poll fails at once: the fleet's own cost, idle), poll interval ${r.intervalSeconds} s, every default collector.`,
    '',
    table(['targets', 'listening after', '/-/ready after', '/-/healthy p50 / p99 / max, spawn to exit (n)', 'RSS peak', 'RSS after 2 intervals', 'no-change reload', '404 body', 'SIGTERM to exit'], rows),
    '',
    `Memory per idle target: ${(r.perTargetBytes / 1024).toFixed(0)} kB ((RSS at ${fleet.targets.toLocaleString('en')} − RSS at ${one.targets.toLocaleString('en')}) / ${(fleet.targets - one.targets).toLocaleString('en')}, each after two intervals).`,
    '',
  ];
}
