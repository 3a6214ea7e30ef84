// The queue collector's counters against the private RabbitMQ node: never going down across
// channel closes, re-created queues and a restart.
import { expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { queueReadings } from './support/queue-readings.js';
import { describeWithBroker, type BrokerHandle } from './support/with-broker.js';

describeWithBroker('queues collector on a real broker', (broker: BrokerHandle) => {
  const { request, ok, connect, collect } = queueReadings(broker);

  // -------------------------------------------------------------------------------------------
  it('served counters never go down across channel closes, re-created queues and a restart', async () => {
    const queue = 'ctr-q';
    const path = `/api/queues/%2F/${queue}`;
    const memory = new Map<string, unknown>(); // one target's collector memory, as the scheduler keeps it
    const COUNTERS = ['rabbitmq_queue_messages_published_total', 'rabbitmq_queue_messages_acked_total', 'rabbitmq_queue_messages_delivered_ack_total', 'rabbitmq_queue_messages_delivered_or_got_total', 'rabbitmq_queue_get_ack_total'];
    const FIELDS = ['publish', 'ack', 'deliver', 'deliver_get', 'get'];
    const last = new Map<string, number>();
    const log: string[] = [];

    // Read from the list the collector reads (GET /api/queues), not from /api/queues/%2F/ctr-q:
    // the broker answers list requests from a cache kept for 5 × the last list query's duration
    // (management_db_cache_multiplier; on 3.10 whatever the query string), so on a loaded
    // machine the single queue can already show new statistics while the list still answers
    // the old ones. Once the list shows them, every later list answer does too.
    const raw = async () => {
      const r = await request('GET', '/api/queues?columns=name,vhost,message_stats');
      type Listed = { name?: string; vhost?: string; message_stats?: Record<string, number> };
      const record = r.status === 200 ? (JSON.parse(r.text) as Listed[]).find((q) => q.vhost === '/' && q.name === queue) : undefined;
      return record ? Object.fromEntries(FIELDS.map((f) => [f, record.message_stats?.[f]])) : undefined;
    };
    /** One poll of the collector; every counter present before and now must not have gone down. */
    const poll = async (event: string) => {
      const r = await collect({ per_vhost: false, stats_every: 1, queues: { include: '^ctr-q$' } }, memory);
      const now: Record<string, number | undefined> = {};
      for (const name of COUNTERS) {
        const value = r.value(name, { vhost: '/', queue });
        now[name] = value;
        const before = last.get(name);
        if (value !== undefined && before !== undefined) expect(value, `${name} after ${event}`).toBeGreaterThanOrEqual(before);
        if (value === undefined) last.delete(name);
        else last.set(name, value);
      }
      log.push(`${event}: raw ${JSON.stringify(await raw())} served ${JSON.stringify(Object.values(now))}`);
      return now;
    };
    /** Waits until the API shows `want` for message_stats (a subset). */
    const rawIs = (want: Record<string, number | undefined>) =>
      eventually(async () => {
        const got = await raw();
        expect(got).toBeDefined();
        for (const [k, v] of Object.entries(want)) expect(got![k], k).toBe(v);
        return got!;
      }, 30_000, `the raw counters at ${JSON.stringify(want)}`);
    /**
     * Publishes n and closes the channel or connection once the API counts them (`total`): a
     * closed channel's last counts wait for the management collector's next tick, and the broker's
     * core metrics GC deletes a dead channel's rows, so a GC run in between loses them (seen on
     * 4.0.5: publish stayed absent after 3 confirmed messages and a closed connection).
     */
    const publish = async (n: number, close: 'channel' | 'connection', total: number) => {
      const conn = await connect();
      const ch = await conn.createConfirmChannel();
      for (let i = 0; i < n; i++) ch.sendToQueue(queue, Buffer.from('x'), { persistent: true });
      await ch.waitForConfirms();
      await rawIs({ publish: total });
      if (close === 'channel') {
        await ch.close();
        return conn;
      }
      await conn.close();
      return undefined;
    };

    await request('DELETE', path);
    await ok('PUT', path, { durable: true, arguments: {} });
    const pubConn = await publish(10, 'channel', 10);
    await rawIs({ publish: 10 });
    const p1 = await poll('10 published, publishing channel closed');
    expect(p1.rabbitmq_queue_messages_published_total).toBe(10);
    await pubConn!.close();

    // Consume 4 with manual ack, and 2 basic.get, on a connection that then closes.
    const conn = await connect();
    const ch = await conn.createChannel();
    await ch.prefetch(4);
    let acked = 0;
    await new Promise<void>((resolve) => {
      void ch.consume(queue, (m) => {
        if (!m || acked === 4) return; // later deliveries stay unacked: requeued on close
        ch.ack(m);
        if (++acked === 4) resolve();
      });
    });
    // The 4 acks are in the statistics before the channel closes, for the reason `publish` gives
    // (seen on 4.3: ack stayed 2, the basic.gets' only).
    await rawIs({ publish: 10, ack: 4 });
    await ch.close();
    const gch = await conn.createChannel();
    for (let i = 0; i < 2; i++) {
      const m = await gch.get(queue, { noAck: false });
      if (m) gch.ack(m);
    }
    await rawIs({ publish: 10, ack: 6, get: 2 }); // deliver is 4 or more: unacked deliveries requeued on close count too
    await poll('4 consumed, 2 got, all acked');
    await conn.close();
    await rawIs({ publish: 10, ack: 6 });
    const afterClose = await poll('consumer connection closed');
    expect(afterClose.rabbitmq_queue_messages_acked_total).toBe(6);

    // Deleted and re-created between two polls, and published into again: raw publish 10 -> 3.
    await ok('DELETE', path);
    await ok('PUT', path, { durable: true, arguments: {} });
    await publish(3, 'connection', 3);
    await rawIs({ publish: 3 });
    const recreated = await poll('deleted, re-created, 3 published');
    expect(recreated.rabbitmq_queue_messages_published_total).toBe(10); // kept its height
    await publish(2, 'connection', 5);
    await rawIs({ publish: 5 });
    expect((await poll('2 more published')).rabbitmq_queue_messages_published_total).toBe(12);

    // The node's application restarts (management statistics live in memory): raw 5 -> 1.
    try {
      await broker.stopApp();
    } finally {
      await broker.startApp();
    }
    await eventually(async () => {
      expect((await request('GET', path)).status).toBe(200);
      return true;
    }, 30_000, 'the queue answering after the restart');
    await publish(1, 'connection', 1);
    await rawIs({ publish: 1 });
    expect((await poll('node restarted, 1 published')).rabbitmq_queue_messages_published_total).toBe(12);
    await publish(4, 'connection', 5);
    await rawIs({ publish: 5 });
    expect((await poll('4 more published')).rabbitmq_queue_messages_published_total).toBe(16);

    // An exclusive queue goes with its connection: its series vanish, nothing is carried over.
    const owner = await connect();
    const och = await owner.createConfirmChannel();
    await och.assertQueue('ctr-excl', { exclusive: true });
    for (let i = 0; i < 3; i++) och.sendToQueue('ctr-excl', Buffer.from('x'));
    await och.waitForConfirms();
    const excl = () => collect({ per_vhost: false, queues: { include: '^ctr-excl$' } }, new Map());
    await eventually(async () => {
      expect((await excl()).value('rabbitmq_queue_messages_published_total', { vhost: '/', queue: 'ctr-excl' })).toBe(3);
      return true;
    }, 30_000, 'ctr-excl served with 3 published');
    await owner.close();
    await eventually(async () => {
      expect((await excl()).family('rabbitmq_queue_messages')).toEqual([]);
      return true;
    }, 30_000, 'ctr-excl gone from the served queues');

    await ok('DELETE', path);
    console.log(`[queues] counters across events:\n  ${log.join('\n  ')}`);
  });
});
