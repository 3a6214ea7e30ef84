const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION_RE = /^(\d+(?:\.\d+)?)(ms|s|m|h)/;

/** Parses Prometheus-style durations: `500ms`, `15s`, `1m30s`, `2h`. Returns milliseconds. */
export function parseDuration(text: string): number {
  let rest = text.trim();
  if (rest === '0') return 0;
  if (rest === '') throw new Error('empty duration');
  let total = 0;
  while (rest.length > 0) {
    const match = DURATION_RE.exec(rest);
    if (!match) throw new Error(`"${text}" is not a duration like 500ms, 15s, 1m30s or 2h`);
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
    rest = rest.slice(match[0].length);
  }
  return Math.round(total);
}

export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
