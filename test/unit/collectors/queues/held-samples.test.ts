import { describe, expect, it } from 'vitest';
import { HeldSamples } from '../../../../src/collectors/queues/held-samples.js';
import type { MetricDef } from '../../../../src/model/metric-def.js';

const def = (name: string) => ({ name, type: 'counter', help: name, labels: ['vhost', 'queue'] }) as unknown as MetricDef;
const publish = def('publish');
const deliver = def('deliver');
const bytes = def('bytes');

const replayed = (held: HeldSamples, key: string) => {
  const out: [string, number][] = [];
  held.replay(key, (d, v) => out.push([d.name, v]));
  return out;
};

describe('held statistics samples', () => {
  it('gives back each queue its own families and values, in order, for queues of different kinds', () => {
    const held = new HeldSamples();
    held.add('a', publish, 1);
    held.add('a', deliver, 2);
    held.add('b', bytes, 3);
    held.add('c', publish, 4);
    held.add('c', deliver, Number.NaN);
    expect(replayed(held, 'a')).toEqual([['publish', 1], ['deliver', 2]]);
    expect(replayed(held, 'b')).toEqual([['bytes', 3]]);
    expect(replayed(held, 'c')).toEqual([['publish', 4], ['deliver', Number.NaN]]);
    expect(replayed(held, 'd')).toEqual([]);
    expect(held.size).toBe(3);
  });

  it('holds 100,000 queues past its first capacity', () => {
    const held = new HeldSamples();
    for (let q = 0; q < 100_000; q++) {
      held.add(`q${q}`, publish, q);
      if (q % 3 === 0) held.add(`q${q}`, bytes, -q);
    }
    expect(held.size).toBe(100_000);
    held.trim();
    held.add('later', deliver, 7); // room again after the trim
    expect(replayed(held, 'q0')).toEqual([['publish', 0], ['bytes', -0]]);
    expect(replayed(held, 'q99998')).toEqual([['publish', 99998]]);
    expect(replayed(held, 'q99999')).toEqual([['publish', 99999], ['bytes', -99999]]);
    expect(replayed(held, 'later')).toEqual([['deliver', 7]]);
  });

  it('a queue whose samples come again later keeps the earlier ones before the new', () => {
    const held = new HeldSamples();
    held.add('a', publish, 1);
    held.add('b', publish, 2);
    held.add('a', bytes, 3);
    expect(replayed(held, 'a')).toEqual([['publish', 1], ['bytes', 3]]);
    expect(replayed(held, 'b')).toEqual([['publish', 2]]);
    expect(held.size).toBe(2);
  });

  it('keeps from an older poll only the keys under the given prefixes that the new one lacks', () => {
    const older = new HeldSamples();
    older.add('{vhost="unread",queue="x"}', publish, 10);
    older.add('{vhost="unread",queue="y"}', publish, 11);
    older.add('{vhost="read",queue="gone"}', publish, 12);
    const fresh = new HeldSamples();
    fresh.add('{vhost="unread",queue="y"}', deliver, 20);
    fresh.add('{vhost="read",queue="z"}', deliver, 21);
    fresh.keepFrom(older, ['{vhost="unread",']);
    expect(replayed(fresh, '{vhost="unread",queue="x"}')).toEqual([['publish', 10]]);
    expect(replayed(fresh, '{vhost="unread",queue="y"}')).toEqual([['deliver', 20]]);
    expect(replayed(fresh, '{vhost="read",queue="gone"}')).toEqual([]);
    expect(replayed(fresh, '{vhost="read",queue="z"}')).toEqual([['deliver', 21]]);
    expect(fresh.size).toBe(3);
  });

  it('made with room for the last poll\'s sizes, it still holds more, and says how many it holds', () => {
    const last = new HeldSamples();
    last.add('a', publish, 1);
    last.add('a', bytes, 2);
    expect(last.sizes).toEqual({ values: 2, entries: 1 });
    const next = new HeldSamples(last.sizes);
    for (let q = 0; q < 1000; q++) next.add(`q${q}`, publish, q);
    next.trim();
    expect(next.sizes).toEqual({ values: 1000, entries: 1000 });
    expect(replayed(next, 'q999')).toEqual([['publish', 999]]);
  });
});
