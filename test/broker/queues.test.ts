// The queue collector against the private RabbitMQ node: values checked against rabbitmqctl
// and GET /api/queues/{vhost}/{name} in every query mode, and odd names.
import type amqp from 'amqplib';
import { expect, it } from 'vitest';
import { checkMetricsWithPromtool } from '../harness/promtool.js';
import { eventually } from '../harness/eventually.js';
import { queueReadings, type Counts } from './support/queue-readings.js';
import { describeWithBroker, type BrokerHandle } from './support/with-broker.js';

const enc = encodeURIComponent;

describeWithBroker('queues collector on a real broker', (broker: BrokerHandle) => {
  const { request, ok, connect, collect, served, fromApi, fromCtl } = queueReadings(broker);

  // -------------------------------------------------------------------------------------------
  it('serves the counts rabbitmqctl and the API report, in every query mode', async () => {
    const vhost = '/';
    const names = ['fill-classic', 'fill-quorum'];
    await ok('PUT', `/api/queues/%2F/fill-classic`, { durable: true, auto_delete: false, arguments: {} });
    await ok('PUT', `/api/queues/%2F/fill-quorum`, { durable: true, auto_delete: false, arguments: { 'x-queue-type': 'quorum' } });
    const modes: Record<string, unknown>[] = [];
    for (const mode of ['columns', 'totals', 'full']) {
      for (const perVhost of [true, false]) for (const pageSize of [0, 2]) modes.push({ mode, per_vhost: perVhost, page_size: pageSize });
    }
    // The defaults: a first poll fetches statistics; the counts-only polls between are what
    // stats_every 0 always does (counts list, consumers from /api/consumers).
    modes.push({}, { stats_every: 0 });

    /** Waits until ctl, the API and every mode of the collector agree, and equal `expected`. */
    const agree = (expected: Counts) =>
      eventually(async () => {
        for (const queue of names) {
          const ctl = await fromCtl(vhost, queue);
          expect(ctl, `rabbitmqctl ${queue}`).toEqual(expected);
          expect(await fromApi(vhost, queue), `API ${queue}`).toEqual(expected);
          for (const options of modes) {
            const r = await collect(options);
            const got = served(r, vhost, queue);
            expect(got, `${queue} ${JSON.stringify(options)}`).toEqual(expected);
          }
        }
        return true;
      }, 45_000, `rabbitmqctl, the API and every mode of the collector at ${JSON.stringify(expected)}`);

    await agree({ messages: 0, ready: 0, unacked: 0, consumers: 0 });

    // Fill: 10 messages into each queue, every other one persistent.
    const publisher = await connect();
    const pch = await publisher.createConfirmChannel();
    for (const queue of names) for (let i = 0; i < 10; i++) pch.sendToQueue(queue, Buffer.from(`m${i}`), { persistent: i % 2 === 0 });
    await pch.waitForConfirms();
    await publisher.close();
    await agree({ messages: 10, ready: 10, unacked: 0, consumers: 0 });

    // Partly consume with manual ack: ack 4, hold 3 (prefetch 3) unacked.
    const consumer = await connect();
    const cch = await consumer.createChannel();
    await cch.prefetch(3);
    const held: amqp.ConsumeMessage[] = [];
    for (const queue of names) {
      let seen = 0;
      await cch.consume(queue, (m) => {
        if (!m) return;
        seen++;
        if (seen <= 4) cch.ack(m);
        else held.push(m);
      });
    }
    await agree({ messages: 6, ready: 3, unacked: 3, consumers: 1 });

    // Drain: a second consumer acknowledges everything; then both go away.
    await cch.close(); // the held messages go back to ready
    await agree({ messages: 6, ready: 6, unacked: 0, consumers: 0 });
    const drain = await consumer.createChannel();
    for (const queue of names) await drain.consume(queue, (m) => m && drain.ack(m));
    await agree({ messages: 0, ready: 0, unacked: 0, consumers: 1 });
    await consumer.close();
    await agree({ messages: 0, ready: 0, unacked: 0, consumers: 0 });

    for (const queue of names) await ok('DELETE', `/api/queues/%2F/${queue}`);
  });

  // -------------------------------------------------------------------------------------------
  it('odd vhost and queue names: escaped labels, and promtool accepts the exposition', async () => {
    const vhost = 'a b%/c';
    await ok('PUT', `/api/vhosts/${enc(vhost)}`, {});
    try {
      await ok('PUT', `/api/permissions/${enc(vhost)}/${enc(broker.username)}`, { configure: '.*', write: '.*', read: '.*' });
      const queues = ['очередь "x" \\ y', 'with "quotes"', 'back\\slash', 'spaces  in name ', 'tab\there'];
      const conn = await connect(vhost);
      const ch = await conn.createConfirmChannel();
      for (const [i, queue] of queues.entries()) {
        await ch.assertQueue(queue, { durable: false });
        for (let n = 0; n <= i; n++) ch.sendToQueue(queue, Buffer.from('x'));
      }
      // A newline: 3.10.8 accepts the declaration but strips it from the name (over AMQP and HTTP).
      const newline = await ch.assertQueue('new\nline', { durable: false });
      expect(newline.queue).toBe('newline');
      await ch.waitForConfirms();
      await conn.close();

      const r = await eventually(async () => {
        const run = await collect();
        for (const [i, queue] of queues.entries()) {
          expect(run.value('rabbitmq_queue_messages', { vhost, queue }), queue).toBe(i + 1);
        }
        return run;
      }, 30_000, 'each queue\'s depth served');
      const lines = r.text.split('\n');
      expect(lines).toContain('rabbitmq_queue_messages{vhost="a b%/c",queue="очередь \\"x\\" \\\\ y"} 1');
      expect(lines).toContain('rabbitmq_queue_messages{vhost="a b%/c",queue="with \\"quotes\\""} 2');
      expect(lines).toContain('rabbitmq_queue_messages{vhost="a b%/c",queue="back\\\\slash"} 3');
      expect(lines).toContain('rabbitmq_queue_messages{vhost="a b%/c",queue="spaces  in name "} 4');
      expect(lines).toContain('rabbitmq_queue_messages{vhost="a b%/c",queue="tab\there"} 5');
      expect(r.value('rabbitmq_queue_messages', { vhost, queue: 'newline' })).toBe(0);
      expect(r.value('rabbitmq_vhost_queues', { vhost, type: 'classic' })).toBe(6);
      // per_vhost auto with several vhosts: the odd vhost was asked for by its encoded path.
      expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'true', paged: 'false' })).toBe(1);

      const check = await checkMetricsWithPromtool(r.text);
      expect(check.output).toBe('');
      expect(check.ok).toBe(true);

      // The same through paging and the broker-side name filter.
      const paged = await collect({ page_size: 2, filter_on_broker: true, queues: { include: '"' } });
      expect(paged.family('rabbitmq_queue_messages').filter((s) => s.labels.vhost === vhost).map((s) => s.labels.queue).sort()).toEqual(['with "quotes"', 'очередь "x" \\ y']);
    } finally {
      await request('DELETE', `/api/vhosts/${enc(vhost)}`);
    }
  });
});
