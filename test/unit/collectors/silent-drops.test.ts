// What a broker's answer can hold that the collectors cannot serve as is: records without a
// name, the same record twice, lone UTF-16 surrogates, megabyte names. Each is left out and
// counted (SampleSink.dropped → rabbitmq_exporter_collector_dropped_objects), or served in a
// bounded form; none fails the poll, none makes a duplicate series. Recorded 3.10.8 answers,
// altered here.
import { describe, expect, it } from 'vitest';
import { exchangesCollector } from '../../../src/collectors/exchanges/collector.js';
import { nodesCollector } from '../../../src/collectors/nodes/collector.js';
import { overviewCollector } from '../../../src/collectors/overview/collector.js';
import { queuesCollector } from '../../../src/collectors/queues/collector.js';
import { vhostsCollector } from '../../../src/collectors/vhosts/collector.js';
import { fakeApi } from '../../support/fake-broker-api.js';
import { loadFixture } from '../../support/fixtures.js';
import { runCollector } from '../../support/run-collector.js';

type Q = Record<string, unknown>;
const FIXTURES = 'rabbitmq-3.10.8';
const QUEUES = loadFixture<{ items: Q[] }>(`${FIXTURES}/queues-page1.json`).items; // 100 queues of vh0
const NODES = loadFixture<Q[]>(`${FIXTURES}/nodes.json`);
const NODE_MEMORY = loadFixture<Q>(`${FIXTURES}/node-memory-b.json`);
const OVERVIEW = loadFixture<Q>(`${FIXTURES}/overview.json`);
const VHOSTS = loadFixture<Q[]>(`${FIXTURES}/vhosts.json`);
const EXCHANGES = loadFixture<{ items: Q[] }>(`${FIXTURES}/exchanges-page1.json`).items;

const noDrops = { no_name: 0, duplicate: 0 };

describe('queues', () => {
  const run = (items: unknown[], options: Q = {}) =>
    runCollector(queuesCollector, { api: fakeApi({ '/api/queues': items }), options: { per_vhost: false, ...options } });

  it('the recorded answer drops nothing', async () => {
    expect((await run(QUEUES)).dropped).toEqual(noDrops);
  });

  it('records whose name or vhost is null, absent or not a string, and items that are not objects, are counted as no_name', async () => {
    const items = [...QUEUES, { ...QUEUES[0], name: null }, { ...QUEUES[0], name: 42 }, { ...QUEUES[0], vhost: undefined }, null, 7, 'q'];
    const r = await run(items);
    expect(r.dropped).toEqual({ no_name: 6, duplicate: 0 });
    expect(r.family('rabbitmq_queue_messages')).toHaveLength(100);
  });

  it('a queue listed twice is served once, with the first record, and counted as duplicate; aggregates count it once', async () => {
    const first = QUEUES[0]!;
    const items = [...QUEUES, { ...first, messages: 999_999 }, QUEUES[1]];
    const r = await run(items);
    expect(r.dropped).toEqual({ no_name: 0, duplicate: 2 });
    expect(r.value('rabbitmq_queue_messages', { vhost: String(first.vhost), queue: String(first.name) })).toBe(first.messages);
    const total = r.family('rabbitmq_vhost_queues').reduce((n, s) => n + s.value, 0);
    expect(total).toBe(100);
  });

  it('the same when paging', async () => {
    const items = [...QUEUES, QUEUES[5], { ...QUEUES[0], name: null }];
    const route = (query: Record<string, string>) => {
      const size = Number(query.page_size);
      const page = Number(query.page);
      return { items: items.slice((page - 1) * size, page * size), page, page_count: Math.ceil(items.length / size) };
    };
    const r = await runCollector(queuesCollector, { api: fakeApi({ '/api/queues': route }), options: { per_vhost: false, page_size: 50 } });
    expect(r.dropped).toEqual({ no_name: 1, duplicate: 1 });
    expect(r.family('rabbitmq_queue_messages')).toHaveLength(100);
  });

  it('three 1 MB queue names make a small exposition: each name cut to 243 bytes plus ~ and a hash, three series', async () => {
    const items = ['a', 'b', 'c'].map((c, i) => ({ ...QUEUES[i], name: c.repeat(1024 * 1024) }));
    const r = await run(items);
    expect(r.text.length).toBeLessThan(100_000);
    const names = r.family('rabbitmq_queue_messages').map((s) => s.labels.queue!);
    expect(names).toHaveLength(3);
    for (const name of names) {
      expect(Buffer.byteLength(name)).toBe(256);
      expect(name).toMatch(/^([abc])\1{242}~[0-9a-f]{12}$/);
    }
    expect(r.dropped).toEqual(noDrops);
  });

  it('a vhost named with a lone surrogate is still asked for (per vhost), and its queues served', async () => {
    const odd = 'vh\uD800';
    const vhosts = [{ name: 'vh0' }, { name: odd }];
    const api = fakeApi({
      '/api/vhosts': vhosts,
      '/api/queues/vh0': QUEUES.slice(0, 2),
      '/api/queues/vh%ED%A0%80': [{ ...QUEUES[2], vhost: odd }],
    });
    const r = await runCollector(queuesCollector, { api, options: { per_vhost: true } });
    expect(api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues/vh0', '/api/queues/vh%ED%A0%80']);
    const vhostLabels = new Set(r.family('rabbitmq_queue_messages').map((s) => s.labels.vhost));
    expect(vhostLabels.size).toBe(2);
    expect([...vhostLabels].find((v) => v !== 'vh0')).toMatch(/^vh\uFFFD~[0-9a-f]{12}$/);
  });
});

describe('nodes', () => {
  const routes = (nodes: unknown[]) => ({
    '/api/nodes': nodes,
    '/api/nodes/rabbit%40vm/memory': NODE_MEMORY,
    '/api/nodes/rabbit%40vm%ED%A0%80/memory': NODE_MEMORY,
  });

  it('a node listed twice and one without a name are counted, not served', async () => {
    const r = await runCollector(nodesCollector, { api: fakeApi(routes([...NODES, NODES[0], { ...NODES[0], name: null }])) });
    expect(r.dropped).toEqual({ no_name: 1, duplicate: 1 });
    expect(r.family('rabbitmq_node_info')).toHaveLength(1);
  });

  it('a node name with a lone surrogate does not fail the poll with "URI malformed": its memory is asked for, byte-encoded', async () => {
    const odd = { ...NODES[0], name: 'rabbit@vm\uD800' };
    const api = fakeApi(routes([...NODES, odd]));
    const r = await runCollector(nodesCollector, { api });
    expect(api.calls.map((c) => c.path)).toContain('/api/nodes/rabbit%40vm%ED%A0%80/memory');
    expect(r.family('rabbitmq_node_info')).toHaveLength(2);
    expect(r.dropped).toEqual(noDrops);
  });
});

describe('overview', () => {
  it('a listener listed twice is one series, the other counted as duplicate', async () => {
    const listeners = OVERVIEW.listeners as Q[];
    const r = await runCollector(overviewCollector, { api: fakeApi({ '/api/overview': { ...OVERVIEW, listeners: [...listeners, listeners[0]] } }) });
    expect(r.family('rabbitmq_listener_info')).toHaveLength(listeners.length);
    expect(r.dropped).toEqual({ no_name: 0, duplicate: 1 });
  });
});

describe('vhosts and exchanges', () => {
  it('vhosts: a nameless and a repeated vhost are counted', async () => {
    const r = await runCollector(vhostsCollector, { api: fakeApi({ '/api/vhosts': [...VHOSTS, { ...VHOSTS[1], name: null }, VHOSTS[2]] }) });
    expect(r.dropped).toEqual({ no_name: 1, duplicate: 1 });
    expect(r.family('rabbitmq_vhost_info')).toHaveLength(VHOSTS.length);
  });

  it('exchanges: a nameless and a repeated exchange are counted', async () => {
    const items = [...EXCHANGES, { ...EXCHANGES[1], name: null }, EXCHANGES[3]];
    const r = await runCollector(exchangesCollector, { api: fakeApi({ '/api/exchanges': items, '/api/bindings': [] }) });
    expect(r.dropped).toEqual({ no_name: 1, duplicate: 1 });
    expect(r.family('rabbitmq_exchange_info')).toHaveLength(EXCHANGES.length);
  });
});
