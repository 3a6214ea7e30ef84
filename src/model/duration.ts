import { z } from 'zod';

/** Units from largest to smallest: a duration names each at most once, in this order, as Prometheus does. */
const UNITS: readonly (readonly [string, number])[] = [
  ['w', 604_800_000],
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
  ['ms', 1],
];
const PART_RE = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/;

/** Parses Prometheus-style durations: `500ms`, `15s`, `1m30s`, `2h`, `1d`, `1w`. Returns milliseconds. */
export function parseDuration(text: string): number {
  let rest = text.trim();
  if (rest === '0') return 0;
  if (rest === '') throw new Error('empty duration');
  const notADuration = () => new Error(`"${text}" is not a duration like 500ms, 15s, 1m30s, 2h or 1d`);
  let total = 0;
  // Index in UNITS of the last unit read: the next must be strictly smaller (no `1s1s`, no `30s1m`).
  let last = -1;
  while (rest.length > 0) {
    const match = PART_RE.exec(rest);
    if (!match) throw notADuration();
    const unit = UNITS.findIndex(([name]) => name === match[2]);
    if (unit <= last) {
      throw new Error(`"${text}" repeats a unit or puts a smaller one first; write units once each, largest first (e.g. 1m30s)`);
    }
    last = unit;
    total += Number(match[1]) * (UNITS[unit] as readonly [string, number])[1];
    rest = rest.slice(match[0].length);
  }
  return Math.round(total);
}

export function formatDuration(ms: number): string {
  if (ms % 86_400_000 === 0 && ms > 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** A duration in the file (`15s`); milliseconds once parsed. */
export const duration = z
  .string({
    error: (issue) =>
      typeof issue.input === 'number'
        ? `${issue.input} has no unit: write a duration such as ${issue.input}s (units ms, s, m, h, d)`
        : issue.input === undefined
          ? undefined
          : 'must be a duration such as 500ms, 15s, 1m30s, 2h or 1d',
  })
  .transform((text, ctx) => {
    try {
      return parseDuration(text);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });
