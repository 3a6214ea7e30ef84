// The connections, channels, consumers and streams collectors against a real RabbitMQ: their
// series must equal what the management API itself lists at the same moment.
import * as amqp from 'amqplib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ManagementClient } from '../../src/broker/management-client.js';
import { channelsCollector } from '../../src/collectors/channels/collector.js';
import { connectionsCollector } from '../../src/collectors/connections/collector.js';
import { consumersCollector } from '../../src/collectors/consumers/collector.js';
import { streamsCollector } from '../../src/collectors/streams/collector.js';
import type { AnyCollector } from '../../src/collectors/kit/collector.js';
import type { SinkProfile } from '../../src/exposition/sample-sink.js';
import { clientFor, runCollector, type RunResult } from '../support/run-collector.js';
import { eventually } from '../harness/eventually.js';
import { describeWithBroker, type BrokerHandle } from './support/with-broker.js';
import { managementApi, managementRequest } from './support/management-api.js';
import { kbuddeNames } from '../../src/profiles/kbudde/names.js';

type Rec = Record<string, unknown>;

const VHOST = 'conn-test "vh"';
const QUEUE_MANUAL = 'conn-test-manual';
const QUEUE_AUTO = 'conn-test-auto';
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function list(b: BrokerHandle, path: string): Promise<Rec[]> {
  return managementApi(b)<Rec[]>('GET', path);
}

/**
 * Runs the collector between two reads of the API's own list; returns both once the two reads
 * agree on `project` (nothing changed while the collector ran).
 */
async function stableRun(
  b: BrokerHandle,
  client: ManagementClient,
  collector: AnyCollector,
  path: string,
  project: (records: Rec[]) => unknown,
  options: Record<string, unknown> = {},
  profile?: SinkProfile,
): Promise<{ r: RunResult; records: Rec[] }> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const before = await list(b, path);
    const r = await runCollector(collector, { api: client, options, profile });
    const after = await list(b, path);
    if (JSON.stringify(project(before)) === JSON.stringify(project(after))) return { r, records: after };
    await sleep(300);
  }
  throw new Error(`${path} kept changing`);
}

/** Sums `fields` of records per label tuple: the API's own numbers, to compare the series with. */
function groupBy(records: Rec[], labels: (r: Rec) => string[], fields: ((r: Rec) => unknown)[]): Map<string, { labels: string[]; count: number; sums: (number | undefined)[] }> {
  const out = new Map<string, { labels: string[]; count: number; sums: (number | undefined)[] }>();
  for (const r of records) {
    const l = labels(r);
    const key = JSON.stringify(l);
    const g = out.get(key) ?? { labels: l, count: 0, sums: fields.map(() => undefined) };
    g.count++;
    fields.forEach((f, i) => {
      const v = f(r);
      if (typeof v === 'number') g.sums[i] = (g.sums[i] ?? 0) + v;
    });
    out.set(key, g);
  }
  return out;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const field = (path: string) => (r: Rec) => path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Rec)[k] : undefined), r);

describeWithBroker('connections, channels and consumers collectors on a real broker', (broker) => {
  const models: amqp.ChannelModel[] = [];
  let client: ManagementClient;

  beforeAll(async () => {
    client = clientFor(broker);
    const api = managementApi(broker);
    await api('PUT', `/api/vhosts/${encodeURIComponent(VHOST)}`, {});
    await api('PUT', `/api/permissions/${encodeURIComponent(VHOST)}/${broker.username}`, { configure: '.*', write: '.*', read: '.*' });

    // 3 connections with 2 channels each.
    const url = `amqp://${broker.username}:${broker.password}@127.0.0.1:${broker.amqpPort}/${encodeURIComponent(VHOST)}`;
    for (let i = 0; i < 3; i++) {
      const model = await amqp.connect(url, { clientProperties: { connection_name: `conn-test-${i}` } });
      models.push(model);
      const a = await model.createChannel();
      const c = await model.createConfirmChannel();
      if (i === 0) {
        // A manual-ack consumer with prefetch 5 holding 5 unacknowledged messages of 20.
        await a.assertQueue(QUEUE_MANUAL, { durable: false });
        for (let k = 0; k < 20; k++) a.sendToQueue(QUEUE_MANUAL, Buffer.from(`m${k}`));
        await c.prefetch(5);
        await c.consume(QUEUE_MANUAL, () => undefined, { noAck: false });
      }
      if (i === 1) {
        // An auto-ack consumer.
        await a.assertQueue(QUEUE_AUTO, { durable: false });
        await a.consume(QUEUE_AUTO, () => undefined, { noAck: true });
        for (let k = 0; k < 3; k++) c.sendToQueue(QUEUE_AUTO, Buffer.from(`a${k}`));
        await c.waitForConfirms();
      }
    }
    // Wait until the statistics show all of it.
    await eventually(
      async () => {
        const s = {
          connections: (await list(broker, `/api/vhosts/${encodeURIComponent(VHOST)}/connections`)).map((c) => c.channels),
          channels: (await list(broker, `/api/vhosts/${encodeURIComponent(VHOST)}/channels`)).map((c) => [
            c.messages_unacknowledged ?? 0,
            field('message_stats.publish')(c) ?? 0,
            field('message_stats.deliver_no_ack')(c) ?? 0,
          ]),
          consumers: (await list(broker, `/api/consumers/${encodeURIComponent(VHOST)}`)).length,
        };
        const total = (i: number) => s.channels.reduce((n, c) => n + (c[i] as number), 0);
        const complete = s.connections.length === 3 && s.connections.every((n) => n === 2) && total(0) === 5 && total(1) === 23 && total(2) === 3 && s.consumers === 2;
        // Thrown, not returned: a timeout then says what the statistics showed last.
        if (!complete) throw new Error(`last ${JSON.stringify(s).slice(0, 2000)}`);
        return s;
      },
      30_000,
      'connections and unacked messages in the statistics',
    );
  });

  afterAll(async () => {
    for (const m of models) await m.close().catch(() => undefined);
    await managementRequest(broker)('DELETE', `/api/vhosts/${encodeURIComponent(VHOST)}`).catch(() => undefined);
    await client?.close();
  });

  it('connections: the aggregates equal the API\'s own list, and show the 3 test connections', async () => {
    const { r, records } = await stableRun(broker, client, connectionsCollector, '/api/connections', (rs) =>
      rs.map((c) => [c.name, c.state, c.channels, c.recv_oct, c.send_oct, c.recv_cnt, c.send_cnt, c.send_pend]),
    );
    const byState = groupBy(records, (c) => [str(c.vhost), str(c.user), str(c.protocol), str(c.node), str(c.state)], [field('channels')]);
    expect(r.family('rabbitmq_connections_by_state')).toHaveLength(byState.size);
    for (const g of byState.values()) {
      const labels = { vhost: g.labels[0]!, user: g.labels[1]!, protocol: g.labels[2]!, node: g.labels[3]!, state: g.labels[4]! };
      expect(r.value('rabbitmq_connections_by_state', labels)).toBe(g.count);
      expect(r.value('rabbitmq_connections_channels', labels)).toBe(g.sums[0]);
    }
    const byGroup = groupBy(records, (c) => [str(c.vhost), str(c.user), str(c.protocol), str(c.node)], ['recv_oct', 'send_oct', 'recv_cnt', 'send_cnt', 'send_pend'].map(field));
    for (const g of byGroup.values()) {
      const labels = { vhost: g.labels[0]!, user: g.labels[1]!, protocol: g.labels[2]!, node: g.labels[3]! };
      expect(r.value('rabbitmq_connections_incoming_bytes', labels)).toBe(g.sums[0]);
      expect(r.value('rabbitmq_connections_outgoing_bytes', labels)).toBe(g.sums[1]);
      expect(r.value('rabbitmq_connections_incoming_packets', labels)).toBe(g.sums[2]);
      expect(r.value('rabbitmq_connections_outgoing_packets', labels)).toBe(g.sums[3]);
      expect(r.value('rabbitmq_connections_send_pending_bytes', labels)).toBe(g.sums[4]);
      expect(r.value('rabbitmq_connections_incoming_bytes_per_second', labels)).toBeGreaterThanOrEqual(0);
    }
    // What the test opened, as literal numbers.
    const ours = { vhost: VHOST, user: broker.username, protocol: 'AMQP 0-9-1', node: broker.nodeName, state: 'running' };
    expect(r.value('rabbitmq_connections_by_state', ours)).toBe(3);
    expect(r.value('rabbitmq_connections_channels', ours)).toBe(6);
    expect(r.skipped).toBe(0);
  });

  it('connections under the kbudde profile: sums and counts per vhost, node, client host and user equal the API\'s own list', async () => {
    const profile = { names: kbuddeNames, clusterName: 'hf-cluster', node: broker.nodeName } as const;
    const fields = ['channels', 'recv_oct', 'recv_cnt', 'send_oct', 'send_cnt', 'send_pend'];
    const { r, records } = await stableRun(broker, client, connectionsCollector, '/api/connections', (rs) => rs.map((c) => [c.name, c.state, ...fields.map((f) => c[f])]), { by_peer_host: true }, profile);
    const group = (c: Rec) => [str(c.vhost), str(c.node), str(c.peer_host), str(c.user)];
    const kbuddeLabels = (l: string[]) => ({ cluster: 'hf-cluster', vhost: l[0]!, node: l[1]!, peer_host: l[2]!, user: l[3]!, self: l[1] === broker.nodeName ? '1' : '0' });
    const byPeer = groupBy(records, group, fields.map(field));
    expect(r.family('rabbitmq_connection_channels')).toHaveLength(byPeer.size);
    const families = ['rabbitmq_connection_channels', 'rabbitmq_connection_received_bytes', 'rabbitmq_connection_received_packets', 'rabbitmq_connection_send_bytes', 'rabbitmq_connection_send_packets', 'rabbitmq_connection_send_pending'];
    for (const g of byPeer.values()) {
      for (const [i, family] of families.entries()) expect(r.value(family, kbuddeLabels(g.labels)), family).toBe(g.sums[i]);
    }
    for (const g of groupBy(records, (c) => [...group(c), str(c.state)], []).values()) {
      const { self, ...labels } = kbuddeLabels(g.labels);
      expect(r.value('rabbitmq_connection_status', { ...labels, state: g.labels[4]!, self })).toBe(g.count);
    }
    // What the test opened, as literal numbers; and no native family.
    const ours = kbuddeLabels([VHOST, broker.nodeName, '127.0.0.1', broker.username]);
    expect(r.value('rabbitmq_connection_channels', ours)).toBe(6);
    const { self, ...oursWithoutSelf } = ours;
    expect(r.value('rabbitmq_connection_status', { ...oursWithoutSelf, state: 'running', self })).toBe(3);
    expect(r.text).not.toMatch(/^rabbitmq_connections_/m);
  });

  it('connections: per-connection counters and info equal the API\'s record', async () => {
    const path = `/api/vhosts/${encodeURIComponent(VHOST)}/connections`;
    const { r, records } = await stableRun(broker, client, connectionsCollector, path, (rs) => rs.map((c) => [c.name, c.recv_oct, c.send_oct, c.recv_cnt, c.send_cnt]), {
      per_connection: true,
      vhosts: [VHOST],
    });
    expect(records).toHaveLength(3);
    expect(r.family('rabbitmq_connection_info')).toHaveLength(3);
    for (const c of records) {
      const labels = { connection: str(c.name), vhost: VHOST, user: broker.username };
      const props = c.client_properties as Rec;
      expect(r.value('rabbitmq_connection_info', {
        ...labels, node: broker.nodeName, protocol: 'AMQP 0-9-1', type: 'network', peer_host: '127.0.0.1', client_name: str(props.connection_name),
        client_product: 'amqplib', client_version: str(props.version), auth_mechanism: 'PLAIN', ssl: 'false',
      })).toBe(1);
      expect(str(props.connection_name)).toMatch(/^conn-test-[012]$/);
      expect(r.value('rabbitmq_connection_channels', labels)).toBe(2);
      expect(r.value('rabbitmq_connection_incoming_bytes_total', labels)).toBe(c.recv_oct);
      expect(r.value('rabbitmq_connection_outgoing_bytes_total', labels)).toBe(c.send_oct);
      expect(r.value('rabbitmq_connection_incoming_packets_total', labels)).toBe(c.recv_cnt);
      expect(r.value('rabbitmq_connection_outgoing_packets_total', labels)).toBe(c.send_cnt);
      expect(r.value('rabbitmq_connection_state', { ...labels, state: 'running' })).toBe(1);
      expect(r.value('rabbitmq_connection_connected_at_timestamp_seconds', labels)).toBe((c.connected_at as number) / 1000);
    }
    // Only the configured vhost was read.
    expect(new Set(r.family('rabbitmq_connections_by_state').map((s) => s.labels.vhost))).toEqual(new Set([VHOST]));
  });

  it('connections: page by page gives the same numbers as one request', async () => {
    const project = (rs: Rec[]) => rs.map((c) => [c.name, c.channels, c.recv_oct, c.send_oct]);
    const whole = await stableRun(broker, client, connectionsCollector, '/api/connections', project, { paging_threshold: 1_000_000 });
    const paged = await stableRun(broker, client, connectionsCollector, '/api/connections', project, { page_size: 1, paging_threshold: 0 });
    if (JSON.stringify(project(whole.records)) === JSON.stringify(project(paged.records))) {
      expect(paged.r.family('rabbitmq_connections_by_state')).toEqual(whole.r.family('rabbitmq_connections_by_state'));
      expect(paged.r.family('rabbitmq_connections_incoming_bytes')).toEqual(whole.r.family('rabbitmq_connections_incoming_bytes'));
    }
    expect(paged.r.value('rabbitmq_connections_by_state', { vhost: VHOST, user: broker.username, protocol: 'AMQP 0-9-1', node: broker.nodeName, state: 'running' })).toBe(3);
  });

  it('channels: the per-vhost sums equal the API\'s own list; 5 unacked messages in the test vhost', async () => {
    const { r, records } = await stableRun(broker, client, channelsCollector, '/api/channels', (rs) =>
      rs.map((c) => [c.name, c.state, c.messages_unacknowledged, c.messages_unconfirmed, c.prefetch_count, (c.message_stats as Rec | undefined)?.publish]),
    );
    const byState = groupBy(records, (c) => [str(c.vhost), str(c.state)], []);
    expect(r.family('rabbitmq_channels_by_state')).toHaveLength(byState.size);
    for (const g of byState.values()) expect(r.value('rabbitmq_channels_by_state', { vhost: g.labels[0]!, state: g.labels[1]! })).toBe(g.count);
    const fields = ['messages_unacknowledged', 'messages_unconfirmed', 'messages_uncommitted', 'acks_uncommitted', 'prefetch_count', 'message_stats.publish', 'message_stats.deliver', 'message_stats.deliver_no_ack', 'message_stats.ack'];
    const names = ['messages_unacked', 'messages_unconfirmed', 'messages_uncommitted', 'acks_uncommitted', 'prefetch', 'messages_published', 'messages_delivered_ack', 'messages_delivered', 'messages_acked'];
    const byVhost = groupBy(records, (c) => [str(c.vhost)], fields.map(field));
    for (const g of byVhost.values()) {
      names.forEach((name, i) => {
        expect(r.value(`rabbitmq_channels_${name}`, { vhost: g.labels[0]! }), name).toBe(g.sums[i]);
      });
    }
    const ours = { vhost: VHOST };
    expect(r.value('rabbitmq_channels_by_state', { vhost: VHOST, state: 'running' })).toBe(6);
    expect(r.value('rabbitmq_channels_messages_unacked', ours)).toBe(5);
    expect(r.value('rabbitmq_channels_prefetch', ours)).toBe(5);
    expect(r.value('rabbitmq_channels_messages_published', ours)).toBe(23);
    expect(r.value('rabbitmq_channels_messages_delivered_ack', ours)).toBe(5);
    expect(r.value('rabbitmq_channels_messages_delivered', ours)).toBe(3);
    expect(r.value('rabbitmq_channels_messages_confirmed', ours)).toBe(3);
    expect(r.skipped).toBe(0);
  });

  it('channels: per-channel series equal the API\'s record', async () => {
    const path = `/api/vhosts/${encodeURIComponent(VHOST)}/channels`;
    const { r, records } = await stableRun(broker, client, channelsCollector, path, (rs) => rs.map((c) => [c.name, c.messages_unacknowledged, c.message_stats]), {
      per_channel: true,
      vhosts: [VHOST],
    });
    expect(records).toHaveLength(6);
    for (const c of records) {
      const labels = { channel: str(c.name), vhost: VHOST, user: broker.username };
      expect(r.value('rabbitmq_channel_messages_unacked', labels)).toBe(c.messages_unacknowledged);
      expect(r.value('rabbitmq_channel_prefetch', labels)).toBe(c.prefetch_count);
      expect(r.value('rabbitmq_channel_consumers', labels)).toBe(c.consumer_count);
      expect(r.value('rabbitmq_channel_messages_published_total', labels)).toBe(field('message_stats.publish')(c));
    }
  });

  it('consumers: counts equal the API\'s own list; one manual-ack consumer with prefetch 5, one auto-ack', async () => {
    const { r, records } = await stableRun(broker, client, consumersCollector, '/api/consumers', (rs) =>
      rs.map((c) => [c.consumer_tag, c.ack_required, c.prefetch_count]).sort(),
    );
    const byMode = groupBy(records, (c) => [str(field('queue.vhost')(c)), c.ack_required === true ? 'manual' : 'auto'], []);
    expect(r.family('rabbitmq_consumers_by_ack_mode')).toHaveLength(byMode.size);
    for (const g of byMode.values()) expect(r.value('rabbitmq_consumers_by_ack_mode', { vhost: g.labels[0]!, ack_mode: g.labels[1]! })).toBe(g.count);
    const byQueue = groupBy(records, (c) => [str(field('queue.vhost')(c)), str(field('queue.name')(c)), c.ack_required === true ? 'manual' : 'auto'], []);
    expect(r.family('rabbitmq_queue_consumers_by_ack_mode')).toHaveLength(byQueue.size);
    for (const g of byQueue.values()) {
      expect(r.value('rabbitmq_queue_consumers_by_ack_mode', { vhost: g.labels[0]!, queue: g.labels[1]!, ack_mode: g.labels[2]! })).toBe(g.count);
    }
    expect(r.value('rabbitmq_consumers_by_ack_mode', { vhost: VHOST, ack_mode: 'manual' })).toBe(1);
    expect(r.value('rabbitmq_consumers_by_ack_mode', { vhost: VHOST, ack_mode: 'auto' })).toBe(1);
    expect(r.value('rabbitmq_consumers_by_prefetch', { vhost: VHOST, prefetch: '2-10' })).toBe(1);
    // Both consumers, under the status the API gives each: 'up' on 3.10 and 4.0; from 4.3 a
    // consumer whose prefetch window is full says 'blocked' (the manual one holds 5 of 20).
    const byActivity = groupBy(records, (c) => [str(field('queue.vhost')(c)), str(c.activity_status)], []);
    for (const g of byActivity.values()) expect(r.value('rabbitmq_consumers_by_activity', { vhost: g.labels[0]!, activity_status: g.labels[1]! })).toBe(g.count);
    expect(r.family('rabbitmq_consumers_by_activity').filter((s) => s.labels.vhost === VHOST).reduce((n, s) => n + s.value, 0)).toBe(2);
    expect(r.value('rabbitmq_queue_consumers_by_ack_mode', { vhost: VHOST, queue: QUEUE_MANUAL, ack_mode: 'manual' })).toBe(1);
    expect(r.value('rabbitmq_queue_consumers_by_ack_mode', { vhost: VHOST, queue: QUEUE_AUTO, ack_mode: 'auto' })).toBe(1);
  });

  it('consumers: per vhost reads /api/consumers/{vhost} only', async () => {
    const r = await runCollector(consumersCollector, { api: client, options: { vhosts: [VHOST, 'no-such-vhost'] } });
    expect(r.parsed.every((s) => s.labels.vhost === VHOST)).toBe(true);
    expect(r.value('rabbitmq_consumers_by_ack_mode', { vhost: VHOST, ack_mode: 'manual' })).toBe(1);
    expect(r.logs.filter((l) => l.vhost === 'no-such-vhost')).toHaveLength(1);
  });

  it('streams: the stream management plugin is not enabled here: no series, no error, one info line', async () => {
    // 404 here; the exporter's client, sending Accept: application/json, gets 406 from 3.10.
    const res = await managementRequest(broker)('GET', '/api/stream/connections');
    // The harness enables no stream plugin (DEFAULT_PLUGINS): should it, this test must change, not pass unseen.
    expect(res.status, 'GET /api/stream/connections with the stream management plugin off').toBe(404);
    const memory = new Map<string, unknown>();
    const first = await runCollector(streamsCollector, { api: client, memory });
    const second = await runCollector(streamsCollector, { api: client, memory });
    expect(first.text).toBe('');
    expect(first.logs).toHaveLength(1);
    expect(second.logs).toHaveLength(0);
  });
});
