// The queue collector against the private RabbitMQ node: values checked against rabbitmqctl
// and GET /api/queues/{vhost}/{name}, odd names, and counters across resets.
import amqp from 'amqplib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ManagementClient } from '../../src/client/management-client.js';
import { queuesCollector } from '../../src/collectors/queues.js';
import { clientFor, runCollector, type RunResult } from '../support/run-collector.js';
import { checkMetricsWithPromtool } from '../harness/promtool.js';
import { eventually } from '../harness/eventually.js';
import { describeWithBroker, type BrokerHandle } from './support/with-broker.js';
import { managementApi, managementRequest } from './support/management-api.js';

const enc = encodeURIComponent;

interface Counts {
  messages: number | undefined;
  ready: number | undefined;
  unacked: number | undefined;
  consumers: number | undefined;
}

describeWithBroker('queues collector on a real broker', (broker: BrokerHandle) => {
  let client: ManagementClient;
  const request = managementRequest(broker);
  const ok = managementApi(broker);
  const connect = (vhost = '/') =>
    amqp.connect({ protocol: 'amqp', hostname: '127.0.0.1', port: broker.amqpPort, username: broker.username, password: broker.password, vhost });
  const collect = (options: Record<string, unknown> = {}, memory?: Map<string, unknown>) =>
    runCollector(queuesCollector, { api: client, options, ...(memory ? { memory } : {}) });
  const served = (r: RunResult, vhost: string, queue: string): Counts => ({
    messages: r.value('rabbitmq_queue_messages', { vhost, queue }),
    ready: r.value('rabbitmq_queue_messages_ready', { vhost, queue }),
    unacked: r.value('rabbitmq_queue_messages_unacked', { vhost, queue }),
    consumers: r.value('rabbitmq_queue_consumers', { vhost, queue }),
  });
  const fromApi = async (vhost: string, queue: string): Promise<Counts> => {
    const q = await ok<Record<string, number>>('GET', `/api/queues/${enc(vhost)}/${enc(queue)}`);
    return { messages: q.messages, ready: q.messages_ready, unacked: q.messages_unacknowledged, consumers: q.consumers };
  };
  const fromCtl = async (vhost: string, queue: string): Promise<Counts> => {
    const out = await broker.ctl(['-q', '--no-table-headers', 'list_queues', '-p', vhost, 'name', 'messages', 'messages_ready', 'messages_unacknowledged', 'consumers']);
    const row = out.split('\n').map((l) => l.split('\t')).find((cols) => cols[0] === queue);
    if (!row) throw new Error(`rabbitmqctl list_queues -p ${vhost} has no ${queue}:\n${out}`);
    const [, messages, ready, unacked, consumers] = row.map(Number);
    return { messages, ready, unacked, consumers };
  };

  beforeAll(() => {
    client = clientFor(broker);
  });
  afterAll(async () => {
    await client?.close();
  });

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
     * Publishes n and closes the channel or connection once the API counts them (`total`): like
     * acks, a channel's publishes reach the queue's message_stats with the channel's next
     * statistics emission, and a channel closed before it takes them along (seen on 4.0.5:
     * publish stayed absent after 3 confirmed messages and a closed connection).
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
    // A channel's acks reach the queue's message_stats with the channel's next statistics
    // emission; a channel closed before that takes them along (seen on 4.3: ack stayed 2, the
    // basic.gets' only). So the 4 acks are in the statistics before the channel closes.
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

  // -------------------------------------------------------------------------------------------
  it('default tiers: counts and consumers every poll, statistics every 4th poll and held unchanged between', async () => {
    const queue = 'tier-q';
    const path = `/api/queues/%2F/${queue}`;
    const memory = new Map<string, unknown>();
    const poll = () => collect({ per_vhost: false, queues: { include: '^tier-q$' } }, memory);
    const publishedRaw = async () => {
      const r = await ok<{ name: string; vhost: string; message_stats?: { publish?: number } }[]>('GET', '/api/queues?columns=name,vhost,message_stats');
      return r.find((q) => q.vhost === '/' && q.name === queue)?.message_stats?.publish;
    };
    const publish = async (n: number) => {
      const conn = await connect();
      const ch = await conn.createConfirmChannel();
      for (let i = 0; i < n; i++) ch.sendToQueue(queue, Buffer.from('x'));
      await ch.waitForConfirms();
      await conn.close();
    };
    await request('DELETE', path);
    await ok('PUT', path, { durable: true, arguments: {} });
    await publish(5);
    await eventually(async () => {
      expect(await publishedRaw()).toBe(5);
      return true;
    }, 30_000, '5 published in the raw statistics');
    const first = await poll();
    expect(first.value('rabbitmq_queue_messages_published_total', { vhost: '/', queue })).toBe(5);
    expect(first.value('rabbitmq_queue_statistics_age_seconds')).toBe(0);

    // 3 more messages and a consumer that holds them unacked: the counts-only polls see the new
    // counts and the consumer at once; the statistics stay those of the first poll.
    await publish(3);
    const conn = await connect();
    const ch = await conn.createChannel();
    await ch.prefetch(100);
    await ch.consume(queue, () => undefined, { noAck: false });
    const expected = { messages: 8, ready: 0, unacked: 8, consumers: 1 };
    await eventually(async () => {
      expect(await fromCtl('/', queue)).toEqual(expected);
      return true;
    }, 30_000, `rabbitmqctl showing ${JSON.stringify(expected)}`);
    await eventually(async () => {
      expect(await publishedRaw()).toBe(8);
      return true;
    }, 30_000, '8 published in the raw statistics');
    // The counts-only list refreshes on the queue's statistics tick: wait until it shows them.
    await eventually(async () => {
      expect(served(await collect({ per_vhost: false, stats_every: 0 }), '/', queue)).toEqual(expected);
      return true;
    }, 30_000, 'the counts-only list showing the new counts');
    for (let i = 1; i <= 3; i++) {
      const r = await poll();
      expect(served(r, '/', queue), `counts-only poll ${i}`).toEqual(expected);
      expect(r.value('rabbitmq_queue_messages_published_total', { vhost: '/', queue }), `counts-only poll ${i}`).toBe(5);
      expect(r.value('rabbitmq_queue_statistics_age_seconds')).toBeGreaterThan(0);
      expect(r.value('rabbitmq_queue_query_info', { mode: 'totals', per_vhost: 'false', paged: 'false' })).toBe(1);
    }
    const fifth = await poll();
    expect(served(fifth, '/', queue)).toEqual(expected);
    expect(fifth.value('rabbitmq_queue_messages_published_total', { vhost: '/', queue })).toBe(8);
    expect(fifth.value('rabbitmq_queue_statistics_age_seconds')).toBe(0);
    expect(fifth.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'false', paged: 'false' })).toBe(1);
    await conn.close();
    await ok('DELETE', path);
  });
  it('max_queues keeps the deepest queues by rabbitmqctl, and always_serve ones; the aggregates count every queue', async () => {
    const depths: Record<string, number> = { 'rank-a': 2, 'rank-b': 9, 'rank-c': 0, 'rank-d': 5, 'rank-e': 1 };
    const conn = await connect();
    const ch = await conn.createConfirmChannel();
    for (const [queue, depth] of Object.entries(depths)) {
      await ok('PUT', `/api/queues/%2F/${queue}`, { durable: true, arguments: {} });
      for (let i = 0; i < depth; i++) ch.sendToQueue(queue, Buffer.from('x'));
    }
    await ch.waitForConfirms();
    await conn.close();
    for (const [queue, depth] of Object.entries(depths)) {
      await eventually(async () => {
        expect((await fromCtl('/', queue)).messages).toBe(depth);
        return true;
      }, 30_000, `rabbitmqctl showing ${depth} messages in ${queue}`);
    }
    // Ranked by what the broker reports, not by the depths this test meant to create.
    const ctlDepths = await Promise.all(Object.keys(depths).map(async (queue) => [queue, (await fromCtl('/', queue)).messages as number] as const));
    const deepest = ctlDepths.sort((a, b) => b[1] - a[1]).slice(0, 2).map(([queue]) => queue).sort();
    const options = { per_vhost: false, queues: { include: '^rank-' }, max_queues: 2 };
    for (const tier of [{}, { stats_every: 0 }]) {
      // Both lists (with statistics, and counts-only) follow the queues' statistics tick: a queue
      // not yet emitted has no counts in them. Wait until the list this poll asks for shows the depths.
      const r = await eventually(async () => {
        const polled = await collect({ ...options, ...tier });
        expect(polled.family('rabbitmq_queue_messages').map((s) => s.labels.queue).sort(), JSON.stringify(tier)).toEqual(deepest);
        for (const queue of deepest) expect(served(polled, '/', queue).messages).toBe(depths[queue]);
        return polled;
      }, 30_000, `the deepest queues served (${JSON.stringify(tier)})`);
      expect(r.value('rabbitmq_queue_series_capped')).toBe(3);
      const listed = await ok<{ type: string }[]>('GET', '/api/queues/%2F?columns=name,type');
      expect(r.value('rabbitmq_vhost_queues', { vhost: '/', type: 'classic' })).toBe(listed.filter((q) => q.type === 'classic').length);
      const pinned = await collect({ ...options, ...tier, always_serve: ['rank-c'] });
      expect(pinned.family('rabbitmq_queue_messages').map((s) => s.labels.queue).sort()).toEqual([...deepest, 'rank-c'].sort());
    }
    for (const queue of Object.keys(depths)) await ok('DELETE', `/api/queues/%2F/${queue}`);
  });
});
