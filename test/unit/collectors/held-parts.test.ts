// The costly parts polled less often (issue 13): the node memory breakdowns and /api/bindings are
// fetched every N polls and served unchanged between, with their age.
import { describe, expect, it } from 'vitest';
import { exchangesCollector } from '../../../src/collectors/exchanges.js';
import { nodesCollector } from '../../../src/collectors/nodes.js';
import { fakeApi, type FakeRoute } from '../../support/fake-broker-api.js';
import { readFixture } from '../../support/fixtures.js';
import { samples } from '../../support/parse-exposition.js';
import { brokerFrom, runCollector, type RunResult } from '../../support/run-collector.js';

const SINGLE = 'rabbitmq-3.10.8';
const CLUSTER = 'rabbitmq-3.10.8-cluster';
const MEMORY = '/api/nodes/rabbit%40vm/memory';
const MEMORY2 = '/api/nodes/rabbit2%40vm/memory';

const memorySamples = (r: RunResult) => [...samples(r.text)].filter(([key]) => key.startsWith('rabbitmq_node_memory_bytes{') || key.startsWith('rabbitmq_node_memory_total_bytes{'));
const paths = (r: RunResult) => r.requests.map((q) => q.path);

describe('nodes: the memory breakdown every memory_breakdown_every polls', () => {
  const routes = (): Record<string, FakeRoute> => ({ '/api/nodes': readFixture(SINGLE, 'nodes.json'), [MEMORY]: readFixture(SINGLE, 'node-memory-b.json') });
  const poll = (memory: Map<string, unknown>, options: Record<string, unknown> = {}, r = routes()) =>
    runCollector(nodesCollector, { api: fakeApi(r), broker: brokerFrom(SINGLE), options, memory });

  it('fetched on the first poll and every 4th (the default); the polls between serve it unchanged with its age', async () => {
    const memory = new Map<string, unknown>();
    const first = await poll(memory);
    expect(paths(first)).toEqual(['/api/nodes', MEMORY]);
    expect(first.value('rabbitmq_node_memory_breakdown_age_seconds')).toBe(0);
    const fetched = memorySamples(first);
    expect(fetched.length).toBeGreaterThan(10);
    for (let i = 2; i <= 4; i++) {
      const held = await poll(memory);
      expect(paths(held), `poll ${i}`).toEqual(['/api/nodes']);
      expect(memorySamples(held), `poll ${i}`).toEqual(fetched);
      expect(held.value('rabbitmq_node_memory_breakdown_age_seconds')).toBeGreaterThanOrEqual(0);
    }
    const fifth = await poll(memory);
    expect(paths(fifth)).toEqual(['/api/nodes', MEMORY]);
  });

  it('memory_breakdown_every: 1 fetches it on every poll', async () => {
    const memory = new Map<string, unknown>();
    for (let i = 0; i < 3; i++) expect(paths(await poll(memory, { memory_breakdown_every: 1 }))).toEqual(['/api/nodes', MEMORY]);
  });

  it('a node stopped since the fetch has no breakdown served; the running one keeps its own', async () => {
    const memory = new Map<string, unknown>();
    const run = (nodesFile: string) =>
      runCollector(nodesCollector, {
        api: fakeApi({ '/api/nodes': readFixture(CLUSTER, nodesFile), [MEMORY]: readFixture(SINGLE, 'node-memory-b.json'), [MEMORY2]: readFixture(SINGLE, 'node-memory-b.json') }),
        broker: brokerFrom(CLUSTER),
        memory,
      });
    const both = await run('nodes.json');
    const nodesOf = (r: RunResult) => [...new Set(memorySamples(r).map(([key]) => /node="([^"]+)"/.exec(key)![1]))].sort();
    expect(nodesOf(both)).toEqual(['rabbit2@vm', 'rabbit@vm']);
    const oneDown = await run('nodes-rabbit2-down.json');
    expect(paths(oneDown)).toEqual(['/api/nodes']);
    expect(nodesOf(oneDown)).toEqual(['rabbit@vm']);
  });

  it('a failed poll changes nothing held: the next poll is still counted from the last good fetch', async () => {
    const memory = new Map<string, unknown>();
    await poll(memory);
    await expect(poll(memory, {}, { '/api/nodes': () => { throw new Error('boom'); } })).rejects.toThrow('boom');
    for (let i = 2; i <= 4; i++) expect(paths(await poll(memory)), `poll ${i}`).toEqual(['/api/nodes']);
    expect(paths(await poll(memory))).toEqual(['/api/nodes', MEMORY]);
  });
});

describe('exchanges: /api/bindings every bindings_every polls', () => {
  const routes = (): Record<string, FakeRoute> => ({
    '/api/exchanges': readFixture<{ items: unknown[] }>(SINGLE, 'exchanges-page1.json').items,
    '/api/bindings': [
      { vhost: 'vh0', destination_type: 'queue' },
      { vhost: 'vh0', destination_type: 'queue' },
      { vhost: 'vh1', destination_type: 'exchange' },
    ],
  });
  const poll = (memory: Map<string, unknown>, options: Record<string, unknown> = {}) =>
    runCollector(exchangesCollector, { api: fakeApi(routes()), broker: brokerFrom(SINGLE), options, memory });

  it('fetched every 4th poll by default, the counts served unchanged between, with their age', async () => {
    const memory = new Map<string, unknown>();
    const first = await poll(memory);
    expect(paths(first)).toEqual(['/api/exchanges', '/api/bindings']);
    expect(first.value('rabbitmq_vhost_bindings', { vhost: 'vh0', destination_type: 'queue' })).toBe(2);
    expect(first.value('rabbitmq_vhost_bindings', { vhost: 'vh1', destination_type: 'exchange' })).toBe(1);
    expect(first.value('rabbitmq_vhost_bindings_age_seconds')).toBe(0);
    for (let i = 2; i <= 4; i++) {
      const held = await poll(memory);
      expect(paths(held), `poll ${i}`).toEqual(['/api/exchanges']);
      expect(held.value('rabbitmq_vhost_bindings', { vhost: 'vh0', destination_type: 'queue' })).toBe(2);
      expect(held.value('rabbitmq_vhost_bindings_age_seconds')).toBeGreaterThanOrEqual(0);
    }
    expect(paths(await poll(memory))).toEqual(['/api/exchanges', '/api/bindings']);
  });

  it('bindings_every: 1 fetches them on every poll; bindings_every: 0 is refused', async () => {
    const memory = new Map<string, unknown>();
    for (let i = 0; i < 3; i++) expect(paths(await poll(memory, { bindings_every: 1 }))).toEqual(['/api/exchanges', '/api/bindings']);
    expect(exchangesCollector.optionsSchema!.safeParse({ bindings_every: 0 }).success).toBe(false);
  });
});
