import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { streamsCollector } from '../../../../src/collectors/streams/collector.js';
import { fakeApi, NOT_FOUND } from '../../../support/fake-broker-api.js';
import { BROKER_3_10_8, runCollector } from '../../../support/run-collector.js';

/*
 * Answers shaped like those of RabbitMQ 3.10.8 with rabbitmq_stream_management (field names as in
 * deps/rabbitmq_stream_management and deps/rabbitmq_stream/src/rabbit_stream_metrics.erl; the
 * values were recorded from a private 3.10.8 node with a minimal stream client: one connection
 * with two publishers, one with two subscriptions, one idle), plus a second vhost.
 */
const NODE = 'rabbit@vm';
const PUB_CONN = '127.0.0.1:49360 -> 127.0.0.1:5552';
const SUB_CONN = '127.0.0.1:49370 -> 127.0.0.1:5552';
const details = (name: string, port: number) => ({ name, node: NODE, peer_host: '127.0.0.1', peer_port: port, user: 'guest' });

/** GET /api/stream/connections?columns=name,vhost */
const connections = [
  { name: PUB_CONN, vhost: '/' },
  { name: SUB_CONN, vhost: '/' },
  { name: '127.0.0.1:49372 -> 127.0.0.1:5552', vhost: '/' },
  { name: '127.0.0.1:49380 -> 127.0.0.1:5552', vhost: 'events' },
];

const publishers = [
  { confirmed: 5, connection_details: details(PUB_CONN, 49360), errored: 0, published: 5, publisher_id: 1, queue: { name: 's2', vhost: '/' }, reference: '' },
  { confirmed: 30, connection_details: details(PUB_CONN, 49360), errored: 0, published: 30, publisher_id: 0, queue: { name: 's1', vhost: '/' }, reference: 'ref-a' },
  { confirmed: 7, connection_details: details('127.0.0.1:49380 -> 127.0.0.1:5552', 49380), errored: 2, published: 9, publisher_id: 0, queue: { name: 'audit', vhost: 'events' }, reference: 'r' },
];

const consumers = [
  { connection_details: details(SUB_CONN, 49370), consumed: 5, credits: 9, offset: 0, offset_lag: 0, properties: {}, queue: { name: 's2', vhost: '/' }, subscription_id: 1 },
  { connection_details: details(SUB_CONN, 49370), consumed: 30, credits: 1, offset: 0, offset_lag: 0, properties: {}, queue: { name: 's1', vhost: '/' }, subscription_id: 0 },
  // Later versions add active and activity_status; a consumer of a just-opened connection has connection_details [].
  { connection_details: [], consumed: 100, credits: 0, offset: 120, offset_lag: 42, active: true, activity_status: 'up', properties: {}, queue: { name: 's1', vhost: '/' }, subscription_id: 3 },
];

const routes = {
  '/api/stream/connections': connections,
  '/api/stream/publishers': publishers,
  '/api/stream/consumers': consumers,
};

describe('streams collector', () => {
  it('counts stream connections, publishers and consumers per vhost', async () => {
    const api = fakeApi(routes);
    const r = await runCollector(streamsCollector, { api });
    expect(r.value('rabbitmq_stream_connections', { vhost: '/' })).toBe(3);
    expect(r.value('rabbitmq_stream_connections', { vhost: 'events' })).toBe(1);
    expect(r.value('rabbitmq_stream_publishers', { vhost: '/' })).toBe(2);
    expect(r.value('rabbitmq_stream_publishers', { vhost: 'events' })).toBe(1);
    expect(r.value('rabbitmq_stream_consumers', { vhost: '/' })).toBe(3);
    expect(r.value('rabbitmq_stream_consumers', { vhost: 'events' })).toBeUndefined();
    // Nothing per stream unless asked for.
    expect(new Set(r.parsed.map((s) => s.name))).toEqual(new Set(['rabbitmq_stream_connections', 'rabbitmq_stream_publishers', 'rabbitmq_stream_consumers']));
    expect(api.calls.map((c) => c.path)).toEqual(['/api/stream/connections', '/api/stream/publishers', '/api/stream/consumers']);
    expect(api.calls[0]!.query).toEqual({ columns: 'name,vhost' });
    expect(r.logs).toHaveLength(0);
  });

  it('serves per-stream counts and per-publisher/consumer series with per_stream', async () => {
    const r = await runCollector(streamsCollector, { api: fakeApi(routes), options: { per_stream: true } });
    expect(r.value('rabbitmq_stream_publishers_by_stream', { vhost: '/', stream: 's1' })).toBe(1);
    expect(r.value('rabbitmq_stream_publishers_by_stream', { vhost: '/', stream: 's2' })).toBe(1);
    expect(r.value('rabbitmq_stream_publishers_by_stream', { vhost: 'events', stream: 'audit' })).toBe(1);
    expect(r.value('rabbitmq_stream_consumers_by_stream', { vhost: '/', stream: 's1' })).toBe(2);
    expect(r.value('rabbitmq_stream_consumers_by_stream', { vhost: '/', stream: 's2' })).toBe(1);

    const p0 = { vhost: '/', stream: 's1', connection: PUB_CONN, publisher_id: '0' };
    expect(r.value('rabbitmq_stream_publisher_published_total', p0)).toBe(30);
    expect(r.value('rabbitmq_stream_publisher_confirmed_total', p0)).toBe(30);
    expect(r.value('rabbitmq_stream_publisher_errored_total', p0)).toBe(0);
    const audit = { vhost: 'events', stream: 'audit', connection: '127.0.0.1:49380 -> 127.0.0.1:5552', publisher_id: '0' };
    expect(r.value('rabbitmq_stream_publisher_published_total', audit)).toBe(9);
    expect(r.value('rabbitmq_stream_publisher_errored_total', audit)).toBe(2);

    const c0 = { vhost: '/', stream: 's1', connection: SUB_CONN, subscription_id: '0' };
    expect(r.value('rabbitmq_stream_consumer_credits', c0)).toBe(1);
    expect(r.value('rabbitmq_stream_consumer_consumed_total', c0)).toBe(30);
    expect(r.value('rabbitmq_stream_consumer_offset', c0)).toBe(0);
    expect(r.value('rabbitmq_stream_consumer_offset_lag', c0)).toBe(0);
    const orphan = { vhost: '/', stream: 's1', connection: '', subscription_id: '3' };
    expect(r.value('rabbitmq_stream_consumer_offset_lag', orphan)).toBe(42);
    expect(r.value('rabbitmq_stream_consumer_offset', orphan)).toBe(120);
    expect(r.text).toContain('# TYPE rabbitmq_stream_publisher_published_total counter\n');
    expect(r.text).toContain('# TYPE rabbitmq_stream_consumer_offset_lag gauge\n');
  });

  it('yields no series, no error and one info line per target when the plugin is absent (404)', async () => {
    const api = fakeApi({ '/api/stream/connections': NOT_FOUND });
    const memory = new Map<string, unknown>();
    const first = await runCollector(streamsCollector, { api, memory });
    const second = await runCollector(streamsCollector, { api, memory });
    expect(first.text).toBe('');
    expect(second.text).toBe('');
    expect(first.logs).toHaveLength(1);
    expect(first.logs[0]).toMatchObject({ level: 30 });
    expect(first.logs[0]!.msg).toMatch(/stream management plugin is not enabled/);
    expect(second.logs).toHaveLength(0);
    // Only the probe: publishers and consumers are not asked for.
    expect(api.calls.map((c) => c.path)).toEqual(['/api/stream/connections', '/api/stream/connections']);
  });

  it('takes the 406 that 3.10.8 answers for an unrouted path to an Accept: application/json request as absent too', async () => {
    // Measured: without rabbitmq_stream_management, GET /api/stream/connections with
    // Accept: application/json answers 406 and an empty body (404 without that header).
    const api = fakeApi({
      '/api/stream/connections': () => {
        throw new ManagementError('http_status', '/api/stream/connections', 'HTTP 406', 406);
      },
    });
    const r = await runCollector(streamsCollector, { api });
    expect(r.text).toBe('');
    expect(r.logs).toHaveLength(1);
  });

  it('logs again when the plugin goes away after having been there', async () => {
    let enabled = true;
    const api = fakeApi({
      '/api/stream/connections': () => (enabled ? connections : NOT_FOUND),
      '/api/stream/publishers': () => (enabled ? publishers : NOT_FOUND),
      '/api/stream/consumers': () => (enabled ? consumers : NOT_FOUND),
    });
    const memory = new Map<string, unknown>();
    const logs: number[] = [];
    for (const state of [false, true, false, false]) {
      enabled = state;
      logs.push((await runCollector(streamsCollector, { api, memory })).logs.length);
    }
    expect(logs).toEqual([1, 0, 1, 0]);
  });

  it('serves the connections when the consumers path is absent (feature flag stream_queue off)', async () => {
    const api = fakeApi({ ...routes, '/api/stream/consumers': NOT_FOUND });
    const r = await runCollector(streamsCollector, { api });
    expect(r.value('rabbitmq_stream_connections', { vhost: '/' })).toBe(3);
    expect(r.value('rabbitmq_stream_publishers', { vhost: '/' })).toBe(2);
    expect(r.family('rabbitmq_stream_consumers')).toHaveLength(0);
  });

  it('with statistics disabled counts the tracked stream connections only', async () => {
    // Measured on 3.10.8 with management.disable_stats: connections listed with name, vhost, user
    // and node; publishers and consumers answer 400.
    const bad = () => {
      throw new ManagementError('http_status', '/api/stream/consumers', 'HTTP 400 (bad_request: Stats in management UI are disabled on this node)', 400);
    };
    const api = fakeApi({ '/api/stream/connections': [{ name: 'a', vhost: '/', user: 'guest', node: NODE }], '/api/stream/publishers': bad, '/api/stream/consumers': bad });
    const r = await runCollector(streamsCollector, { api, broker: { ...BROKER_3_10_8, statisticsDisabled: true } });
    expect(r.parsed).toEqual([{ name: 'rabbitmq_stream_connections', labels: { vhost: '/' }, value: 1 }]);
    expect(api.calls).toHaveLength(1);
  });

  it('fails the poll on other errors', async () => {
    const api = fakeApi({
      '/api/stream/connections': () => {
        throw new ManagementError('http_status', '/api/stream/connections', 'HTTP 500', 500);
      },
    });
    await expect(runCollector(streamsCollector, { api })).rejects.toThrow(/HTTP 500/);
  });

  it('skips non-numeric and null values, de-duplicates, and escapes odd stream names', async () => {
    const odd = 'str"e\\am\n';
    const api = fakeApi({
      '/api/stream/connections': [{ name: 'c', vhost: '/' }, { name: 'c', vhost: '/' }],
      '/api/stream/publishers': [
        { connection_details: details('c', 1), publisher_id: 0, queue: { name: odd, vhost: '/' }, published: '12', confirmed: null, errored: 'none' },
        { connection_details: details('c', 1), publisher_id: 0, queue: { name: odd, vhost: '/' }, published: '12', confirmed: null, errored: 'none' },
      ],
      '/api/stream/consumers': [],
    });
    const r = await runCollector(streamsCollector, { api, options: { per_stream: true } });
    expect(r.value('rabbitmq_stream_connections', { vhost: '/' })).toBe(1);
    expect(r.value('rabbitmq_stream_publishers', { vhost: '/' })).toBe(1);
    const p = { vhost: '/', stream: odd, connection: 'c', publisher_id: '0' };
    expect(r.value('rabbitmq_stream_publisher_published_total', p)).toBe(12);
    expect(r.value('rabbitmq_stream_publisher_confirmed_total', p)).toBeUndefined();
    expect(r.value('rabbitmq_stream_publisher_errored_total', p)).toBeUndefined();
    // null and 'none'
    expect(r.skipped).toBe(2);
    expect(r.text).toContain('rabbitmq_stream_publishers_by_stream{vhost="/",stream="str\\"e\\\\am\\n"} 1\n');
    expect(r.family('rabbitmq_stream_consumers')).toHaveLength(0);
  });
});
