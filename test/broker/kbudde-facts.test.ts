// What test/fixtures/kbudde/families.json says about the broker's answers, checked on the private
// RabbitMQ node: which fields kbudde's families read exist, and in which unit.
import { readFileSync } from 'node:fs';
import amqp from 'amqplib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { atLeast } from '../harness/broker/versions.js';
import { describeWithBroker, type BrokerHandle } from './support/with-broker.js';
import { managementApi, managementRequest } from './support/management-api.js';

interface Family {
  name: string;
  module: string;
  field: string | null;
  exclude_key: string | null;
  condition: string | null;
}

const families = (JSON.parse(readFileSync(new URL('../fixtures/kbudde/families.json', import.meta.url), 'utf8')) as { families: Family[] }).families;
const enc = encodeURIComponent;
const EXCHANGE = 'kbudde-facts.x';
const QUEUE = 'kbudde-facts.q';
const PUBLISHED = 5;
const UNROUTABLE = 3;
/** AMQP's timestamp property is in seconds. */
const TIMESTAMP = 1_700_000_000;

type Json = Record<string, unknown>;
const statsKeys = (record: Json): string[] =>
  Object.keys((record.message_stats as Json | undefined) ?? {}).filter((key) => !key.endsWith('_details')).sort();

describeWithBroker('kbudde fixtures against a real broker', (broker: BrokerHandle) => {
  const api = managementApi(broker);
  const get = (path: string) => api<unknown>('GET', path);
  let exchange: Json;
  let queue: Json;

  beforeAll(async () => {
    const connection = await amqp.connect(broker.amqpUrl);
    try {
      const confirms = await connection.createConfirmChannel();
      await confirms.assertExchange(EXCHANGE, 'direct', { durable: false });
      await confirms.assertQueue(QUEUE, { durable: false });
      await confirms.bindQueue(QUEUE, EXCHANGE, 'k');
      for (let i = 0; i < PUBLISHED; i++) confirms.publish(EXCHANGE, 'k', Buffer.from('m'), { timestamp: TIMESTAMP, mandatory: true });
      for (let i = 0; i < UNROUTABLE; i++) confirms.publish(EXCHANGE, 'nowhere', Buffer.from('m'), { mandatory: true });
      await confirms.waitForConfirms();
      const consumer = await connection.createChannel();
      const manual = await consumer.get(QUEUE, { noAck: false });
      if (manual) consumer.ack(manual);
      await consumer.get(QUEUE, { noAck: true });
      // The channels stay open until the API has counted every message. A closed channel's last
      // counts wait for the management collector's next tick (every 5 s), and the broker's core
      // metrics GC (every 120 s) deletes a dead channel's rows: when it runs in between, those counts
      // are never counted (forced with `rabbit_core_metrics_gc ! start_gc` on 3.10.8 and 4.3.6: the
      // exchange and queue message_stats stayed {}).
      [exchange, queue] = await eventually(
        async () => {
          const x = (await get(`/api/exchanges/%2F/${enc(EXCHANGE)}`)) as Json;
          const q = ((await get('/api/queues/%2F')) as Json[]).find((r) => r.name === QUEUE);
          const xs = x.message_stats as Json | undefined;
          const qs = q?.message_stats as Json | undefined;
          // The head message's timestamp comes with the queue's own stats tick, which may come after
          // the counters' (seen on 4.3; on 3.10 the field is there, null, until then): wait for it too.
          const counted = xs?.publish_in === PUBLISHED + UNROUTABLE && qs?.publish === PUBLISHED && qs?.ack === 1 && qs?.get_no_ack === 1;
          return counted && q?.head_message_timestamp != null ? [x, q] : undefined;
        },
        30_000,
        'exchange and queue statistics',
      );
    } finally {
      await connection.close();
    }
  });

  afterAll(async () => {
    for (const path of [`/api/queues/%2F/${enc(QUEUE)}`, `/api/exchanges/%2F/${enc(EXCHANGE)}`]) {
      await managementRequest(broker)('DELETE', path);
    }
  });

  it('an exchange counts only publish_in and publish_out, also with confirms and returns', () => {
    expect(statsKeys(exchange)).toEqual(['publish_in', 'publish_out']);
    const served = families.filter((f) => f.module === 'exchange' && !/in practice no series/.test(f.condition ?? '')).map((f) => f.field);
    expect(served.sort()).toEqual(['message_stats.publish_in', 'message_stats.publish_out']);
  });

  it('a queue in the list has no confirm, return or disk counters: kbudde serves 0 for those', () => {
    expect(statsKeys(queue)).toEqual(['ack', 'deliver', 'deliver_get', 'deliver_no_ack', 'get', 'get_empty', 'get_no_ack', 'publish', 'redeliver']);
    for (const field of ['disk_reads', 'disk_writes']) expect(queue, field).not.toHaveProperty(field);
    const alwaysZero = ['message_stats.confirm', 'message_stats.return', 'disk_reads', 'disk_writes'];
    for (const field of alwaysZero) expect(families.some((f) => f.module === 'queue' && f.field === field), field).toBe(true);
  });

  it('head_message_timestamp is the publisher\'s timestamp in seconds', () => {
    expect(queue.head_message_timestamp).toBe(TIMESTAMP);
  });

  it('/api/overview names the node that answered (what kbudde\'s self label compares with)', async () => {
    const overview = (await get('/api/overview')) as Json;
    expect(overview.node).toBe(broker.nodeName);
  });

  it('the memory breakdown has every area kbudde reads except connection_readers_bytes (and, from 4.0, queue_slave_procs)', async () => {
    const answer = (await get(`/api/nodes/${enc(broker.nodeName)}/memory`)) as Json;
    const flat = new Set<string>();
    for (const [area, value] of Object.entries(answer.memory as Json)) {
      if (value !== null && typeof value === 'object') for (const measure of Object.keys(value)) flat.add(`memory.${area}.${measure}`);
      else flat.add(`memory.${area}`);
    }
    const keys = families.filter((f) => f.module === 'memory').map((f) => f.exclude_key!);
    // Classic queue mirroring, and with it the mirrors' memory area, is gone in RabbitMQ 4.0.
    const gone = atLeast(broker.version!, '4.0') ? ['memory.queue_slave_procs'] : [];
    expect(keys.filter((key) => !flat.has(key))).toEqual(['memory.connection_readers_bytes', ...gone]);
  });
});
