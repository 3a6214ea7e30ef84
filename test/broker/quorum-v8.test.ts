// The fields RabbitMQ 4.x added to a quorum queue's record (returned messages, publishers and
// delivery limit from 4.0, delayed messages from 4.3) and a stream's segments: served as GET /api/queues/{vhost}/{name}
// reports them on a real broker, after a message returned with requeue; absent on versions whose
// records lack the field.
import amqp from 'amqplib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ManagementClient } from '../../src/broker/management-client.js';
import { queuesCollector } from '../../src/collectors/queues/collector.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { eventually } from '../harness/eventually.js';
import { atLeast } from '../harness/broker/versions.js';
import { managementApi } from './support/management-api.js';
import { describeWithBroker } from './support/with-broker.js';

const QUORUM = 'v8-quorum';
const STREAM = 'v8-stream';
/** Record field → the family serving it, for each queue. */
const FIELDS: Record<string, Record<string, string>> = {
  [QUORUM]: {
    messages_delayed: 'rabbitmq_queue_messages_delayed',
    messages_ready_returned: 'rabbitmq_queue_messages_ready_returned',
    publishers: 'rabbitmq_queue_publishers',
    delivery_limit: 'rabbitmq_queue_delivery_limit',
  },
  [STREAM]: { segments: 'rabbitmq_queue_stream_segments' },
};

describeWithBroker('quorum-queue and stream state of RabbitMQ 4.x', (broker) => {
  let client: ManagementClient;
  let conn: amqp.ChannelModel;
  const api = managementApi(broker);

  beforeAll(async () => {
    client = clientFor(broker);
    await api('PUT', `/api/queues/%2F/${QUORUM}`, { durable: true, arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': 5 } });
    await api('PUT', `/api/queues/%2F/${STREAM}`, { durable: true, arguments: { 'x-queue-type': 'stream' } });
    conn = await amqp.connect(broker.amqpUrl);
    // The publishing channel stays open: a quorum queue counts it among its publishers.
    const publisher = await conn.createConfirmChannel();
    for (let i = 0; i < 4; i++) publisher.sendToQueue(QUORUM, Buffer.from(`m${i}`), { persistent: true });
    for (let i = 0; i < 3; i++) publisher.sendToQueue(STREAM, Buffer.from(`s${i}`), { persistent: true });
    await publisher.waitForConfirms();
    // One message fetched and returned with requeue: a returned ready message.
    const getter = await conn.createChannel();
    const message = await getter.get(QUORUM, { noAck: false });
    if (message === false) throw new Error(`${QUORUM} was empty after 4 confirmed publishes`);
    getter.nack(message, false, true);
  }, 120_000);

  afterAll(async () => {
    await conn?.close().catch(() => undefined);
    for (const name of [QUORUM, STREAM]) await api('DELETE', `/api/queues/%2F/${name}`).catch(() => undefined);
    await client?.close();
  });

  it('serves each field as the queue\'s record in the API has it, and none the record lacks', async () => {
    let last: unknown;
    const seen = await eventually(
      async () => {
        const records = new Map<string, Record<string, unknown>>();
        for (const name of [QUORUM, STREAM]) records.set(name, await api<Record<string, unknown>>('GET', `/api/queues/%2F/${name}`));
        // The counts reach the API with the queue's statistics tick: wait for the returned message (4.3) or the 4 messages.
        const quorum = records.get(QUORUM)!;
        if (quorum.messages !== 4 || ('messages_ready_returned' in quorum && quorum.messages_ready_returned !== 1)) return undefined;
        const r = await runCollector(queuesCollector, { api: client, options: { queues: { include: '^v8-' } } });
        const pairs: Record<string, [unknown, number | undefined]> = {};
        for (const [name, fields] of Object.entries(FIELDS)) {
          for (const [field, family] of Object.entries(fields)) {
            const value = records.get(name)![field];
            pairs[`${name} ${field}`] = [typeof value === 'number' ? value : undefined, r.value(family, { vhost: '/', queue: name })];
          }
        }
        last = pairs;
        return Object.values(pairs).every(([fromApi, served]) => fromApi === served) ? pairs : undefined;
      },
      60_000,
      'the API to count the returned message and the exporter to serve each field as the API has it',
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}: ${JSON.stringify(last)}`);
    });
    // 4.0's quorum queues (v4) report returned messages, publishers and the delivery limit, its
    // streams their segments; 4.3 (v8) adds the delayed messages. Where a record lacks a field
    // the exporter serves none, never 0.
    const v4 = atLeast(broker.version!, '4.0');
    const absent = [undefined, undefined];
    expect(seen).toEqual({
      [`${QUORUM} messages_delayed`]: atLeast(broker.version!, '4.3') ? [0, 0] : absent,
      [`${QUORUM} messages_ready_returned`]: v4 ? [1, 1] : absent,
      [`${QUORUM} publishers`]: v4 ? [1, 1] : absent,
      [`${QUORUM} delivery_limit`]: v4 ? [5, 5] : absent,
      [`${STREAM} segments`]: v4 ? [1, 1] : absent,
    });
  });
});
