import { describe, expect, it } from 'vitest';
import { brokerInfoFromOverview } from '../../../../src/broker/broker-info.js';
import { catalogue } from '../../../../src/collectors/catalogue.js';
import { COLLECTORS } from '../../../../src/collectors/registry.js';
import { SampleSink } from '../../../../src/exposition/sample-sink.js';
import { chunkText, concatFamilies } from '../../../../src/exposition/text-format.js';
import { fixtureBroker } from '../../../support/fixture-broker.js';
import { runCollector } from '../../../support/run-collector.js';
import { kbuddeNames } from '../../../../src/profiles/kbudde/names.js';

/**
 * Collectors under the kbudde profile (issue 15): the modules whose families need the record
 * (shovel and federation states, aliveness, connections by client host) and the queue collector's
 * label fields across its statistics and counts-only polls.
 */

type Json = Record<string, unknown>;
const all = catalogue(COLLECTORS);
const byName = (name: string) => all.find((d) => d.name === name)!;

describe('the shovel, federation and aliveness modules under the kbudde profile', () => {
  const profile = { names: kbuddeNames, clusterName: 'c', node: 'rabbit@a' } as const;

  it('serves a shovel\'s info series as rabbitmq_shovel_state, its state read from the record', () => {
    const sink = new SampleSink(undefined, profile);
    const info = byName('rabbitmq_shovel_info');
    const labels = { vhost: '/', shovel: 's1', type: 'dynamic', node: 'rabbit@b', src_protocol: 'amqp091', dest_protocol: 'amqp10' };
    sink.add(info, labels, 1, { state: 'flow' });
    const text = Buffer.concat(concatFamilies(sink.finish(), false).map(chunkText)).toString('utf8');
    expect(text).toContain('rabbitmq_shovel_state{cluster="c",vhost="/",shovel="s1",type="dynamic",self="0",state="flow"} 1\n');
  });

  it('folds federation links that differ only by upstream into one series, the first served, and keeps different statuses apart', () => {
    const sink = new SampleSink(undefined, profile);
    const info = byName('rabbitmq_federation_link_info');
    const link = (upstream: string) => ({ vhost: '/', upstream, exchange: 'x', queue: '', type: 'exchange', upstream_exchange: 'x', upstream_queue: '', node: 'rabbit@a' });
    expect(sink.add(info, link('up1'), 1, { status: 'running' })).toBe(true);
    expect(sink.add(info, link('up2'), 1, { status: 'running' })).toBe(false);
    expect(sink.add(info, link('up3'), 1, { status: 'error' })).toBe(true);
    expect(sink.dropped.get('duplicate')).toBe(1);
    const lines = Buffer.concat(concatFamilies(sink.finish(), false).map(chunkText)).toString('utf8').split('\n').filter((l) => l.startsWith('rabbitmq_'));
    expect(lines).toEqual([
      'rabbitmq_federation_state{cluster="c",vhost="/",node="rabbit@a",queue="",exchange="x",self="1",status="running"} 1',
      'rabbitmq_federation_state{cluster="c",vhost="/",node="rabbit@a",queue="",exchange="x",self="1",status="error"} 1',
    ]);
  });

  it('serves the connections module from recorded answers: sums and counts per vhost, node, client host and user, equal to the API\'s', async () => {
    const connections = COLLECTORS.find((c) => c.name === 'connections')!;
    const api = fixtureBroker('test/fixtures/rabbitmq-3.10.8');
    const broker = brokerInfoFromOverview(await api.get<Json>('/api/overview'));
    const kbudde = await runCollector(connections, { api, broker, options: { by_peer_host: true }, profile: { ...profile, node: broker.node } });
    const records = await api.get<Json[]>('/api/connections');
    expect(records.length).toBeGreaterThan(5);
    const groups = new Map<string, Json[]>();
    for (const r of records) {
      const key = JSON.stringify([r.vhost, r.node, r.peer_host, r.user]);
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    const sum = (rs: Json[], field: string) => rs.reduce((n, r) => n + (r[field] as number), 0);
    const families = { rabbitmq_connection_channels: 'channels', rabbitmq_connection_received_bytes: 'recv_oct', rabbitmq_connection_received_packets: 'recv_cnt', rabbitmq_connection_send_bytes: 'send_oct', rabbitmq_connection_send_packets: 'send_cnt', rabbitmq_connection_send_pending: 'send_pend' };
    for (const [key, rs] of groups) {
      const [vhost, node, peer_host, user] = JSON.parse(key) as string[];
      const labels = { cluster: 'c', vhost: vhost!, node: node!, peer_host: peer_host!, user: user!, self: node === broker.node ? '1' : '0' };
      for (const [family, field] of Object.entries(families)) expect(kbudde.value(family, labels), `${family} ${key}`).toBe(sum(rs, field));
      for (const state of new Set(rs.map((r) => r.state as string))) {
        expect(kbudde.value('rabbitmq_connection_status', { ...labels, state })).toBe(rs.filter((r) => r.state === state).length);
      }
    }
    for (const family of [...Object.keys(families), 'rabbitmq_connection_status']) expect(kbudde.family(family).length, family).toBeGreaterThan(0);
    expect(kbudde.family('rabbitmq_connection_channels').length).toBe(groups.size);
    expect(kbudde.text).not.toMatch(/rabbitmq_connections_/);
  });

  it('serves the aliveness test of recorded answers as rabbitmq_aliveness_info and no other health check', async () => {
    const healthChecks = COLLECTORS.find((c) => c.name === 'health_checks')!;
    const api = fixtureBroker('test/fixtures/rabbitmq-3.10.8');
    const broker = brokerInfoFromOverview(await api.get<Json>('/api/overview'));
    const kbudde = await runCollector(healthChecks, { api, broker, options: { aliveness_vhosts: ['/'] }, profile });
    const native = await runCollector(healthChecks, { api, broker, options: { aliveness_vhosts: ['/'] } });
    expect(native.value('rabbitmq_health_check_up', { check: 'aliveness-test', vhost: '/' })).toBe(1);
    expect(kbudde.text.split('\n').filter((l) => l.startsWith('rabbitmq_'))).toEqual(['rabbitmq_aliveness_info{status="ok",error="",reason=""} 1']);
  });
});

describe('the queue collector under the kbudde profile', () => {
  const queues = COLLECTORS.find((c) => c.name === 'queues')!;
  const columnsOf = (r: { requests: { path: string; query: Record<string, string> }[] }) =>
    r.requests.filter((q) => q.path.startsWith('/api/queues')).map((q) => (q.query.columns ?? '').split(','));

  it('asks for durable, policy and node with columns= even when rabbitmq_queue_info is off; the native names do not', async () => {
    const api = fixtureBroker('test/fixtures/rabbitmq-3.10.8');
    const profile = { names: kbuddeNames, clusterName: 'rabbit@vm', node: 'rabbit@vm' } as const;
    for (const stats_every of [1, 0]) {
      const kbudde = columnsOf(await runCollector(queues, { api, profile, options: { info: false, stats_every } }));
      const native = columnsOf(await runCollector(queues, { api, options: { info: false, stats_every } }));
      expect(kbudde.length).toBeGreaterThan(0);
      for (const columns of kbudde) expect(columns).toEqual(expect.arrayContaining(['durable', 'policy', 'node']));
      for (const columns of native) for (const field of ['durable', 'policy', 'node']) expect(columns).not.toContain(field);
    }
  });

  it('labels the statistics served again by a counts-only poll with the queue\'s record of that poll', async () => {
    const api = fixtureBroker('test/fixtures/rabbitmq-3.10.8');
    const profile = { names: kbuddeNames, clusterName: 'rabbit@vm', node: 'rabbit@vm' } as const;
    const memory = new Map<string, unknown>();
    const first = await runCollector(queues, { api, profile, memory, options: { stats_every: 2 } });
    const second = await runCollector(queues, { api, profile, memory, options: { stats_every: 2 } });
    expect(second.requests.some((r) => r.query.disable_stats === 'true')).toBe(true);
    const memoryOf = (r: typeof first) => r.family('rabbitmq_queue_memory').map((s) => `${JSON.stringify(s.labels)} ${s.value}`).sort();
    expect(memoryOf(first).length).toBeGreaterThan(10);
    expect(memoryOf(second)).toEqual(memoryOf(first));
  });
});
