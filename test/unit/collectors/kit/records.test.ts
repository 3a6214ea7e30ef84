import { describe, expect, it } from 'vitest';
import type { Collector } from '../../../../src/collectors/kit/collector.js';
import { aggregate, type ListRequest, listPart, uniqueRecordsInTurns } from '../../../../src/collectors/kit/records.js';
import { SampleSink } from '../../../../src/exposition/sample-sink.js';
import { collectParts } from '../../../../src/collectors/kit/optional-requests.js';
import { defineMetrics, metricsOf } from '../../../../src/model/metric-def.js';
import { fakeApi, NOT_FOUND } from '../../../support/fake-broker-api.js';
import { runCollector } from '../../../support/run-collector.js';
import { busy, loopTurnsDuring } from '../../../support/loop-turns.js';

const M = defineMetrics('things', {
  up: { name: 'test_thing_up', type: 'gauge', labels: ['thing'], help: 'A thing.' },
  total: { name: 'test_things', type: 'gauge', help: 'Things.' },
  byColour: { name: 'test_things_by_colour', type: 'gauge', labels: ['colour'], help: 'Things by colour.' },
  upByColour: { name: 'test_things_up_by_colour', type: 'gauge', labels: ['colour'], help: 'Things up by colour.' },
});

function collectorOf(request: Omit<ListRequest, 'each'>): Collector {
  return {
    name: 'things',
    description: 'test',
    defaultEnabled: true,
    defaultIntervalMultiplier: 1,
    metrics: metricsOf(M),
    async collect(ctx) {
      await collectParts(ctx, 'things', [listPart(ctx, { ...request, each: (r) => ctx.sink.add(M.up, [String(r.name)], r.up) })]);
    },
  };
}

const byName = (r: Record<string, unknown>) => (typeof r.name === 'string' ? r.name : undefined);
const aggregations = [
  { group: () => [], families: [{ metric: M.total }] },
  { group: (r: Record<string, unknown>) => (typeof r.colour === 'string' ? [r.colour] : undefined), families: [{ metric: M.byColour }, { metric: M.upByColour, sum: 'up' }] },
];

describe('records: list requests, uniqueness, aggregations', () => {
  it('keeps the first of two records of one object, drops the repeat and the nameless, and counts and sums each object once', async () => {
    const things = [{ name: 'a', up: 1, colour: 'red' }, { name: 'a', up: 0, colour: 'red' }, { up: 1 }, { name: 'b', up: 0 }, { name: 'c', colour: 'blue' }, { name: 'd', up: 'x', colour: 'red' }];
    const r = await runCollector(collectorOf({ path: '/api/things', identity: byName, aggregations }), { api: fakeApi({ '/api/things': things }) });
    expect([...r.samples]).toEqual([
      ['test_thing_up{thing="a"}', 1],
      ['test_thing_up{thing="b"}', 0],
      ['test_things', 4],
      ['test_things_by_colour{colour="red"}', 2],
      ['test_things_by_colour{colour="blue"}', 1],
      ['test_things_up_by_colour{colour="red"}', 1],
    ]);
    expect(r.dropped).toMatchObject({ duplicate: 1, no_name: 1 });
    // Skipped: c's absent and d's non-numeric up as samples of their own, and d's in the sum for red
    // (an absent field adds nothing to a sum, so blue has no sum at all).
    expect(r.skipped).toBe(3);
  });

  it('with prefer, keeps the preferred record in the first one\'s place and drops nothing', async () => {
    const things = [{ name: 'a', up: 0 }, { name: 'b', up: 0 }, { name: 'a', up: 1 }];
    const prefer = (candidate: Record<string, unknown>) => candidate.up === 1;
    const r = await runCollector(collectorOf({ path: '/api/things', identity: byName, prefer }), { api: fakeApi({ '/api/things': things }) });
    expect([...r.samples]).toEqual([
      ['test_thing_up{thing="a"}', 1],
      ['test_thing_up{thing="b"}', 0],
    ]);
    expect(r.dropped).toMatchObject({ duplicate: 0, no_name: 0 });
  });

  it('serves a count without labels as 0 for an empty list, and nothing at all for an optional path that is absent', async () => {
    const empty = await runCollector(collectorOf({ path: '/api/things', identity: byName, aggregations }), { api: fakeApi({ '/api/things': [] }) });
    expect([...empty.samples]).toEqual([['test_things', 0]]);
    const absent = await runCollector(collectorOf({ path: '/api/things', optional: { absentMeans: 'no things' }, identity: byName, aggregations }), {
      api: fakeApi({ '/api/things': NOT_FOUND }),
    });
    expect(absent.samples.size).toBe(0);
    await expect(runCollector(collectorOf({ path: '/api/things', identity: byName, aggregations }), { api: fakeApi({ '/api/things': NOT_FOUND }) })).rejects.toMatchObject({
      status: 404,
    });
  });

  describe('long lists hand the event loop turns (100,000 channels held it for 0.85 s)', () => {
    /** Records whose handling takes ~0.1 ms each, so 200 of them outlast YIELD_MS several times. */
    const slowRecords = Array.from({ length: 200 }, (_, i) => ({ name: `t${i}`, up: 1, colour: 'red' }));
    function slowly<T>(f: (r: Record<string, unknown>) => T): (r: Record<string, unknown>) => T {
      return (r) => {
        busy(0.1);
        return f(r);
      };
    }
    // ~20 ms of work, the clock looked at every 50 records (5 ms): a turn at least every 10 ms.
    // Without turns the loop gets none until the work ends (a fake request may give it one).
    const minimum = 2;

    it('aggregate', async () => {
      const sink = new SampleSink();
      const turns = await loopTurnsDuring(() => aggregate(sink, slowRecords, [{ group: slowly(() => []), families: [{ metric: M.total }] }]));
      expect(turns).toBeGreaterThanOrEqual(minimum);
      expect(sink.finish().map((f) => f.samples)).toEqual([1]);
    });

    it('uniqueRecordsInTurns', async () => {
      const sink = new SampleSink();
      let unique: unknown[] = [];
      const turns = await loopTurnsDuring(async () => (unique = await uniqueRecordsInTurns(slowRecords, slowly(byName), sink)));
      expect(turns).toBeGreaterThanOrEqual(minimum);
      expect(unique).toHaveLength(200);
    });

    it('a list part writing its records', async () => {
      const request = { path: '/api/things', identity: byName };
      const collector: Collector = {
        ...collectorOf(request),
        async collect(ctx) {
          await collectParts(ctx, 'things', [listPart(ctx, { ...request, each: slowly((r) => ctx.sink.add(M.up, [String(r.name)], r.up)) })]);
        },
      };
      let samples = 0;
      const turns = await loopTurnsDuring(async () => {
        samples = (await runCollector(collector, { api: fakeApi({ '/api/things': slowRecords }) })).samples.size;
      });
      expect(turns).toBeGreaterThanOrEqual(minimum);
      expect(samples).toBe(200);
    });
  });
});
