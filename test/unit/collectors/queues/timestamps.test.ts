import { describe, expect, it } from 'vitest';
import { brokerTimestamp, parsedTimestamp, parseTimestamp } from '../../../../src/collectors/queues/series.js';

/** A deterministic stream of numbers in [0, 1): the same strings on every run. */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

describe('idle_since read digit by digit', () => {
  it('equals Date.parse on the broker forms, in range and out of it', () => {
    const next = numbers(7);
    const pick = (max: number) => Math.floor(next() * max);
    let read = 0;
    // Disagreements are gathered and compared once: an expect per value (120,000 of them) took
    // seconds on a loaded machine.
    const wrong: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      // Fields mostly in range, sometimes just outside it (month 13, day 32, hour 24, second 60).
      const fields = [1960 + pick(100), pick(14), pick(33), pick(25), pick(61), pick(61), pick(1000)];
      const [y, mo, d, h, mi, s, ms] = fields as [number, number, number, number, number, number, number];
      const date = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}`;
      const time = `${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}`;
      for (const value of [`${date}T${time}.${pad(ms, 3)}+00:00`, `${date} ${time}`]) {
        const fast = brokerTimestamp(value);
        const inRange = y >= 1970 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && s <= 59;
        if (inRange) {
          if (fast === undefined) wrong.push(`${value}: not read`);
          read++;
        }
        if (fast !== undefined && fast !== parsedTimestamp(value)) wrong.push(`${value}: ${fast}, Date.parse ${parsedTimestamp(value)}`);
        if (parseTimestamp(value) !== parsedTimestamp(value)) wrong.push(`${value}: parseTimestamp ${parseTimestamp(value)}, Date.parse ${parsedTimestamp(value)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(read).toBeGreaterThan(10_000);
  });

  it('leaves every other form to Date.parse', () => {
    for (const value of ['2026-11-22T02:50:13.694Z', '2026-11-22T02:50:13+00:00', '2026-11-22T02:50:13.694+01:00', '2026-11-22 02:50', '2026-1a-22 02:50:13', '2026/11/22 02:50:13']) {
      expect(brokerTimestamp(value), value).toBeUndefined();
      expect(parseTimestamp(value), value).toBe(parsedTimestamp(value));
    }
    expect(parseTimestamp('2026-11-22T02:50:13.694+01:00')).toBe(1795315813.694 - 3600);
  });
});
