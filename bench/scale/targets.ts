// The scale targets of issue 29 as pass/fail checks of one run's figures (a benchmark, not a timed test).
import { median } from '../run/util.js';
import type { SizeResult } from './measure.js';

export interface TargetCheck {
  queues: number;
  what: string;
  measured: number;
  limit: number;
  unit: '×' | 'MB' | 'ms' | 'series';
  pass: boolean;
}

/**
 * CPU seconds per poll at a fraction changing over JSON.parse of the same bodies: the median of
 * each poll's over the parse of its own answers in its window, where the run measured them (the
 * machine's speed drifts over minutes: the parse after the run took 0.24 to 0.42 s for the same
 * bodies from run to run); in results before that, the median poll's over the median parse after the run.
 */
export function cpuOverParse(r: SizeResult, fraction: number): number {
  const phase = r.changes.find((c) => c.fraction === fraction);
  if (!phase) return NaN;
  const pairs = phase.cpuSeconds.flatMap((cpu, i) => {
    const parse = phase.parseSeconds?.[i];
    return parse !== undefined && Number.isFinite(parse) && parse > 0 ? [cpu / parse] : [];
  });
  return pairs.length > 0 ? median(pairs) : median(phase.cpuSeconds) / median(r.parseSeconds);
}

const check = (queues: number, what: string, measured: number, limit: number, unit: TargetCheck['unit']): TargetCheck => ({ queues, what, measured, limit, unit, pass: measured <= limit });

/**
 * `families`: the run rolled queues up by family with per-queue series off. Its targets are issue
 * 29's series and RSS alone: the others are the default metric set's, and its CPU ratio is over
 * the parse of lists asked for the roll-ups' columns only, another yardstick.
 */
export function targetChecks(results: SizeResult[], families = false): TargetCheck[] {
  const at = (n: number) => results.find((r) => r.queues === n);
  const k100 = at(100_000);
  if (families) {
    if (!k100) return [];
    return [check(100_000, 'series, families on and per-queue series off', k100.series, 50_000, 'series'), check(100_000, 'RSS, max over the run, families on and per-queue series off', k100.rssMaxBytes / 1e6, 200, 'MB')];
  }
  const checks: TargetCheck[] = [];
  if (k100) {
    const cpu10 = cpuOverParse(k100, 0.1);
    const cpu100 = cpuOverParse(k100, 1);
    if (Number.isFinite(cpu10)) checks.push(check(100_000, 'CPU per poll / JSON.parse of the same bodies, 10% of queues changing', cpu10, 3, '×'));
    if (Number.isFinite(cpu100)) checks.push(check(100_000, 'CPU per poll / JSON.parse of the same bodies, all queues changing', cpu100, 6, '×'));
    checks.push(
      check(100_000, 'RSS, max over the run', k100.rssMaxBytes / 1e6, 400, 'MB'),
      check(100_000, '/metrics p99 during polls', k100.latency.p99DuringMs, 20, 'ms'),
      check(100_000, '/metrics max during polls', k100.latency.maxDuringMs, 100, 'ms'),
      check(100_000, 'longest event-loop delay', k100.loopMaxSeconds * 1000, 50, 'ms'),
    );
  }
  const k10 = at(10_000);
  if (k10) checks.push(check(10_000, 'RSS, max over the run', k10.rssMaxBytes / 1e6, 150, 'MB'));
  const k300 = at(300_000);
  // "Every figure within 3.3× of the 100k one": each figure the 100k targets judge.
  if (k100 && k300) {
    const cpu = (r: SizeResult, fraction: number) => median(r.changes.find((c) => c.fraction === fraction)?.cpuSeconds ?? [NaN]);
    checks.push(
      check(300_000, 'CPU per poll (10% changing) / the 100k figure', cpu(k300, 0.1) / cpu(k100, 0.1), 3.3, '×'),
      check(300_000, 'CPU per poll (all changing) / the 100k figure', cpu(k300, 1) / cpu(k100, 1), 3.3, '×'),
      check(300_000, 'RSS / the 100k figure', k300.rssMaxBytes / k100.rssMaxBytes, 3.3, '×'),
      check(300_000, '/metrics p99 during polls / the 100k figure', k300.latency.p99DuringMs / k100.latency.p99DuringMs, 3.3, '×'),
      check(300_000, '/metrics max during polls / the 100k figure', k300.latency.maxDuringMs / k100.latency.maxDuringMs, 3.3, '×'),
      check(300_000, 'longest event-loop delay / the 100k figure', k300.loopMaxSeconds / k100.loopMaxSeconds, 3.3, '×'),
    );
  }
  return checks;
}
