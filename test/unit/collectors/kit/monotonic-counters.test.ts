import { describe, expect, it } from 'vitest';
import { MonotonicCounters } from '../../../../src/collectors/kit/monotonic-counters.js';

/** `a` is counter `total` of series `{x="a"}`; `a.sent` is counter `sent` of the same series. */
const seriesOf = (key: string) => `{x="${key.split('.')[0]}"}`;
const counterOf = (key: string) => key.split('.')[1] ?? 'total';

/** One poll: adjust every series, then commit (what the queue collector does). */
function poll(c: MonotonicCounters, values: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, raw] of Object.entries(values)) out[key] = c.adjust(seriesOf(key), counterOf(key), raw);
  c.commit();
  return out;
}

describe('MonotonicCounters', () => {
  it('passes raw values through while they grow', () => {
    const c = new MonotonicCounters();
    expect(poll(c, { a: 0, b: 5 })).toEqual({ a: 0, b: 5 });
    expect(poll(c, { a: 3, b: 5 })).toEqual({ a: 3, b: 5 });
  });

  it('a raw decrease keeps the served value; growth continues from there', () => {
    const c = new MonotonicCounters();
    expect(poll(c, { a: 100 })).toEqual({ a: 100 });
    expect(poll(c, { a: 40 })).toEqual({ a: 100 });
    expect(poll(c, { a: 55 })).toEqual({ a: 115 });
    expect(poll(c, { a: 0 })).toEqual({ a: 115 }); // a second decrease adds to the offset
    expect(poll(c, { a: 1 })).toEqual({ a: 116 });
  });

  it('series are independent', () => {
    const c = new MonotonicCounters();
    poll(c, { a: 10, b: 10 });
    expect(poll(c, { a: 5, b: 20 })).toEqual({ a: 10, b: 20 });
  });

  it('forgets a series that was not seen in a committed poll', () => {
    const c = new MonotonicCounters();
    poll(c, { a: 100 });
    poll(c, { a: 40 }); // served 100 (offset 60)
    poll(c, {}); // a vanished
    expect(poll(c, { a: 7 })).toEqual({ a: 7 });
  });

  it('discard() keeps the state of the last committed poll', () => {
    const c = new MonotonicCounters();
    poll(c, { a: 100 });
    c.adjust(seriesOf('a'), 'total', 10); // a poll that fails half-way
    c.adjust(seriesOf('b'), 'total', 3);
    c.discard();
    expect(poll(c, { a: 110 })).toEqual({ a: 110 }); // compared with 100, not 10
  });

  it('in(memory) returns the same instance across polls and discards an unfinished poll', () => {
    const memory = new Map<string, unknown>();
    const first = MonotonicCounters.in(memory);
    poll(first, { a: 50 });
    first.adjust(seriesOf('a'), 'total', 1); // never committed
    const second = MonotonicCounters.in(memory);
    expect(second).toBe(first);
    expect(poll(second, { a: 20 })).toEqual({ a: 50 });
    expect(MonotonicCounters.in(new Map())).not.toBe(first);
  });

  it('counters of one series are independent, and a counter first seen later gets a slot of its own', () => {
    const c = new MonotonicCounters();
    expect(poll(c, { a: 10 })).toEqual({ a: 10 });
    expect(poll(c, { a: 5, 'a.sent': 100, 'b.sent': 7 })).toEqual({ a: 10, 'a.sent': 100, 'b.sent': 7 });
    expect(poll(c, { a: 6, 'a.sent': 50, 'b.sent': 8 })).toEqual({ a: 11, 'a.sent': 100, 'b.sent': 8 });
    expect(poll(c, { 'a.sent': 60 })).toEqual({ 'a.sent': 110 });
    expect(poll(c, { a: 1, 'a.sent': 61 })).toEqual({ a: 1, 'a.sent': 111 }); // a was not seen last poll: forgotten
  });
});
