import { describe, expect, it } from 'vitest';
import type { Collector } from '../../../src/collectors/collector.js';
import { type ListRequest, listPart } from '../../../src/collectors/list-request.js';
import { collectParts } from '../../../src/collectors/optional-requests.js';
import { defineMetrics, metricsOf } from '../../../src/metrics/metric-def.js';
import { fakeApi, NOT_FOUND } from '../../support/fake-broker-api.js';
import { runCollector } from '../../support/run-collector.js';

const M = defineMetrics('things', {
  up: { name: 'test_thing_up', type: 'gauge', labels: ['thing'], help: 'A thing.' },
  total: { name: 'test_things', type: 'gauge', help: 'Things.' },
  byColour: { name: 'test_things_by_colour', type: 'gauge', labels: ['colour'], help: 'Things by colour.' },
});

function collectorOf(request: Omit<ListRequest, 'each'>): Collector {
  return {
    name: 'things',
    description: 'test',
    defaultEnabled: true,
    defaultIntervalMultiplier: 1,
    metrics: metricsOf(M),
    async collect(ctx) {
      await collectParts(ctx, [listPart(ctx, { ...request, each: (r) => ctx.sink.add(M.up, [String(r.name)], r.up) })]);
    },
  };
}

const byName = (r: Record<string, unknown>) => (typeof r.name === 'string' ? r.name : undefined);
const counts = [
  { metric: M.total, group: () => [] },
  { metric: M.byColour, group: (r: Record<string, unknown>) => (typeof r.colour === 'string' ? [r.colour] : undefined) },
];

describe('list requests', () => {
  it('keeps the first of two records of one object, drops the repeat and the nameless, and counts each object once', async () => {
    const things = [{ name: 'a', up: 1, colour: 'red' }, { name: 'a', up: 0, colour: 'red' }, { up: 1 }, { name: 'b', up: 0 }];
    const r = await runCollector(collectorOf({ path: '/api/things', identity: byName, counts }), { api: fakeApi({ '/api/things': things }) });
    expect([...r.samples]).toEqual([
      ['test_thing_up{thing="a"}', 1],
      ['test_thing_up{thing="b"}', 0],
      ['test_things', 2],
      ['test_things_by_colour{colour="red"}', 1],
    ]);
    expect(r.dropped).toMatchObject({ duplicate: 1, no_name: 1 });
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
    const empty = await runCollector(collectorOf({ path: '/api/things', identity: byName, counts }), { api: fakeApi({ '/api/things': [] }) });
    expect([...empty.samples]).toEqual([['test_things', 0]]);
    const absent = await runCollector(collectorOf({ path: '/api/things', optional: { absentMeans: 'no things' }, identity: byName, counts }), {
      api: fakeApi({ '/api/things': NOT_FOUND }),
    });
    expect(absent.samples.size).toBe(0);
    await expect(runCollector(collectorOf({ path: '/api/things', identity: byName, counts }), { api: fakeApi({ '/api/things': NOT_FOUND }) })).rejects.toMatchObject({
      status: 404,
    });
  });
});
