// The costly parts polled less often (issue 13): the node memory breakdowns and /api/bindings are
// fetched every N polls and served unchanged between, with their age.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exchangesCollector } from '../../../../src/collectors/exchanges/collector.js';
import { nodesCollector } from '../../../../src/collectors/nodes/collector.js';
import { ManagementError } from '../../../../src/broker/errors.js';
import { fakeApi, STALL, type FakeRoute } from '../../../support/fake-broker-api.js';
import { readFixture } from '../../../support/fixtures.js';
import { samples } from '../../../support/parse-exposition.js';
import { brokerFrom, runCollector, type RunResult } from '../../../support/run-collector.js';

const SINGLE = 'rabbitmq-3.10.8';
const CLUSTER = 'rabbitmq-3.10.8-cluster';
const MEMORY = '/api/nodes/rabbit%40vm/memory';
const MEMORY2 = '/api/nodes/rabbit2%40vm/memory';

const memorySamples = (r: RunResult) => [...samples(r.text)].filter(([key]) => key.startsWith('rabbitmq_node_memory_bytes{') || key.startsWith('rabbitmq_node_memory_total_bytes{'));
const paths = (r: RunResult) => r.requests.map((q) => q.path);

afterEach(() => {
  vi.useRealTimers();
});

describe('nodes: the memory breakdown every memory_breakdown_every polls', () => {
  const routes = (): Record<string, FakeRoute> => ({ '/api/nodes': readFixture(SINGLE, 'nodes.json'), [MEMORY]: readFixture(SINGLE, 'node-memory-b.json') });
  const poll = (memory: Map<string, unknown>, options: Record<string, unknown> = {}, r = routes()) =>
    runCollector(nodesCollector, { api: fakeApi(r), broker: brokerFrom(SINGLE), options, memory });

  it('fetched on the first poll and every 4th (the default); the polls between serve it unchanged with its age', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    vi.setSystemTime(1_000_000);
    const memory = new Map<string, unknown>();
    const first = await poll(memory);
    expect(paths(first)).toEqual(['/api/nodes', MEMORY]);
    expect(first.value('rabbitmq_node_memory_breakdown_age_seconds')).toBe(0);
    const fetched = memorySamples(first);
    expect(fetched.length).toBeGreaterThan(10);
    for (let i = 2; i <= 4; i++) {
      vi.advanceTimersByTime(15_000);
      const held = await poll(memory);
      expect(paths(held), `poll ${i}`).toEqual(['/api/nodes']);
      expect(memorySamples(held), `poll ${i}`).toEqual(fetched);
      expect(held.value('rabbitmq_node_memory_breakdown_age_seconds'), `poll ${i}`).toBe(15 * (i - 1));
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

describe('nodes: a memory breakdown that fails or stalls never fails the poll', () => {
  const nodes = readFixture(SINGLE, 'nodes.json');
  const breakdown = readFixture(SINGLE, 'node-memory-b.json');
  const poll = (memory: Map<string, unknown>, route: FakeRoute, limits = { timeoutMs: 2000, maxAgeMs: 60_000 }) =>
    runCollector(nodesCollector, { api: fakeApi({ '/api/nodes': nodes, [MEMORY]: route }), broker: brokerFrom(SINGLE), memory, limits });
  const nodeSeries = (r: RunResult) => [...samples(r.text)].filter(([key]) => key.startsWith('rabbitmq_node_') && !key.startsWith('rabbitmq_node_memory_'));

  it('a stalled breakdown ends before the poll\'s deadline: the nodes are served, the breakdown held from its last fetch, the part reported and fetched again next poll', async () => {
    const memory = new Map<string, unknown>();
    const good = await poll(memory, breakdown, { timeoutMs: 2000, maxAgeMs: 60_000 });
    const fetched = memorySamples(good);
    for (let i = 2; i <= 4; i++) await poll(memory, breakdown);
    const started = performance.now();
    const stalled = await poll(memory, STALL, { timeoutMs: 3000, maxAgeMs: 60_000 });
    // Its own deadline, a third of the poll's, ended it: well within the poll's.
    expect(performance.now() - started).toBeLessThan(2500);
    expect(paths(stalled)).toEqual(['/api/nodes', MEMORY]);
    expect(nodeSeries(stalled)).toEqual(nodeSeries(good));
    expect(memorySamples(stalled)).toEqual(fetched);
    expect(stalled.value('rabbitmq_exporter_collector_part_failed', { collector: 'nodes', part: 'memory_breakdown', reason: 'timeout' })).toBe(1);
    expect(stalled.logs.filter((l) => l.part === 'memory_breakdown' && l.level === 40)).toHaveLength(1);
    // Fetched again at the next poll, not memory_breakdown_every polls later; reported while it fails, logged once.
    const again = await poll(memory, STALL);
    expect(paths(again)).toEqual(['/api/nodes', MEMORY]);
    expect(again.value('rabbitmq_exporter_collector_part_failed', { collector: 'nodes', part: 'memory_breakdown', reason: 'timeout' })).toBe(1);
    expect(again.logs.filter((l) => l.part === 'memory_breakdown' && l.level === 40)).toHaveLength(0);
    const back = await poll(memory, breakdown);
    expect(back.family('rabbitmq_exporter_collector_part_failed')).toEqual([]);
    expect(back.value('rabbitmq_node_memory_breakdown_age_seconds')).toBe(0);
    expect(back.logs.find((l) => l.part === 'memory_breakdown')?.msg).toContain('succeeds again');
  });

  it('a breakdown answering HTTP 500 leaves the nodes served; with nothing fetched yet there is no breakdown and no age', async () => {
    const failing = () => {
      throw new ManagementError('http_status', MEMORY, 'HTTP 500', 500);
    };
    const r = await poll(new Map(), failing);
    expect(nodeSeries(r)).toEqual(nodeSeries(await poll(new Map(), breakdown)));
    expect(memorySamples(r)).toEqual([]);
    expect(r.value('rabbitmq_node_memory_breakdown_age_seconds')).toBeUndefined();
    expect(r.value('rabbitmq_exporter_collector_part_failed', { collector: 'nodes', part: 'memory_breakdown', reason: 'http_500' })).toBe(1);
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
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    vi.setSystemTime(1_000_000);
    const memory = new Map<string, unknown>();
    const first = await poll(memory);
    expect(paths(first)).toEqual(['/api/exchanges', '/api/bindings']);
    expect(first.value('rabbitmq_vhost_bindings', { vhost: 'vh0', destination_type: 'queue' })).toBe(2);
    expect(first.value('rabbitmq_vhost_bindings', { vhost: 'vh1', destination_type: 'exchange' })).toBe(1);
    expect(first.value('rabbitmq_vhost_bindings_age_seconds')).toBe(0);
    for (let i = 2; i <= 4; i++) {
      vi.advanceTimersByTime(15_000);
      const held = await poll(memory);
      expect(paths(held), `poll ${i}`).toEqual(['/api/exchanges']);
      expect(held.value('rabbitmq_vhost_bindings', { vhost: 'vh0', destination_type: 'queue' })).toBe(2);
      expect(held.value('rabbitmq_vhost_bindings_age_seconds'), `poll ${i}`).toBe(15 * (i - 1));
    }
    expect(paths(await poll(memory))).toEqual(['/api/exchanges', '/api/bindings']);
  });

  it('bindings_every: 1 fetches them on every poll; bindings_every: 0 is refused', async () => {
    const memory = new Map<string, unknown>();
    for (let i = 0; i < 3; i++) expect(paths(await poll(memory, { bindings_every: 1 }))).toEqual(['/api/exchanges', '/api/bindings']);
    expect(exchangesCollector.optionsSchema!.safeParse({ bindings_every: 0 }).success).toBe(false);
  });
});
