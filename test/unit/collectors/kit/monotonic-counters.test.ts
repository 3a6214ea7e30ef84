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

  it('keeps a series of a vhost not read (commit with its prefix), and it goes on from its value when read again', () => {
    const c = new MonotonicCounters();
    poll(c, { a: 100 });
    poll(c, { a: 40, b: 9 }); // a served 100 (offset 60)
    c.commit(['{x="a"']); // neither read: b is forgotten, a is kept
    expect(poll(c, { a: 41, b: 1 })).toEqual({ a: 101, b: 1 });
  });

  it('a series seen only in a poll that failed is not kept by a prefix', () => {
    const c = new MonotonicCounters();
    poll(c, { b: 5 });
    c.adjust(seriesOf('a'), 'total', 100); // a failed poll sees a for the first time
    c.discard();
    c.commit(['{x="']); // nothing read: b is kept, a was never committed
    expect(poll(c, { a: 10, b: 4 })).toEqual({ a: 10, b: 5 });
  });

  it('a kept series whose last poll failed keeps the values of the last committed one', () => {
    const c = new MonotonicCounters();
    poll(c, { a: 100 });
    c.adjust(seriesOf('a'), 'total', 10); // a poll that fails half-way
    c.discard();
    c.commit(['{x="a"']); // a not read: kept as committed (100), not as failed (10)
    expect(poll(c, { a: 110 })).toEqual({ a: 110 });
  });

  it('failed polls in a row change nothing that is served', () => {
    const c = new MonotonicCounters();
    poll(c, { a: 100 });
    for (const raw of [10, 5, 200]) {
      c.adjust(seriesOf('a'), 'total', raw);
      c.discard();
    }
    expect(poll(c, { a: 90 })).toEqual({ a: 100 });
    expect(poll(c, { a: 95 })).toEqual({ a: 105 });
  });

  it('keeps one state per series across polls instead of new ones each poll', () => {
    const c = new MonotonicCounters();
    poll(c, { a: 1, 'a.sent': 2 });
    const states = (c as unknown as { states: Map<string, number[]> }).states;
    const first = states.get(seriesOf('a'));
    poll(c, { a: 2, 'a.sent': 3 });
    expect(states.get(seriesOf('a'))).toBe(first);
  });
});
