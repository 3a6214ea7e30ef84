// The queue collector's tiers of freshness (statistics every Nth poll) and max_queues against
// the private RabbitMQ node.
import { expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { queueReadings } from './support/queue-readings.js';
import { describeWithBroker, type BrokerHandle } from './support/with-broker.js';

describeWithBroker('queues collector on a real broker', (broker: BrokerHandle) => {
  const { request, ok, connect, collect, served, fromCtl } = queueReadings(broker);

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
    // The channel stays open until the queue's statistics count its publishes: a closed channel's
    // last counts are lost when the broker's core metrics GC runs before the management collector's tick.
    const publish = async (n: number, total: number) => {
      const conn = await connect();
      try {
        const ch = await conn.createConfirmChannel();
        for (let i = 0; i < n; i++) ch.sendToQueue(queue, Buffer.from('x'));
        await ch.waitForConfirms();
        await eventually(async () => {
          expect(await publishedRaw()).toBe(total);
          return true;
        }, 30_000, `${total} published in the raw statistics`);
      } finally {
        await conn.close();
      }
    };
    await request('DELETE', path);
    await ok('PUT', path, { durable: true, arguments: {} });
    await publish(5, 5);
    const first = await poll();
    expect(first.value('rabbitmq_queue_messages_published_total', { vhost: '/', queue })).toBe(5);
    expect(first.value('rabbitmq_queue_statistics_age_seconds')).toBe(0);

    // 3 more messages and a consumer that holds them unacked: the counts-only polls see the new
    // counts and the consumer at once; the statistics stay those of the first poll.
    await publish(3, 8);
    const conn = await connect();
    const ch = await conn.createChannel();
    await ch.prefetch(100);
    await ch.consume(queue, () => undefined, { noAck: false });
    const expected = { messages: 8, ready: 0, unacked: 8, consumers: 1 };
    await eventually(async () => {
      expect(await fromCtl('/', queue)).toEqual(expected);
      return true;
    }, 30_000, `rabbitmqctl showing ${JSON.stringify(expected)}`);
    // The counts-only list refreshes on the queue's statistics tick: wait until it shows them.
    await eventually(async () => {
      expect(served(await collect({ per_vhost: false, stats_every: 0 }), '/', queue)).toEqual(expected);
      return true;
    }, 30_000, 'the counts-only list showing the new counts');
    // The statistics list is the management database's copy, refreshed on its own collector's
    // tick, which can come after the counts-only list's: the fifth poll reads it, so wait for it too.
    await eventually(async () => {
      expect(served(await collect({ per_vhost: false, queues: { include: '^tier-q$' } }), '/', queue)).toEqual(expected);
      return true;
    }, 30_000, 'the statistics list showing the new counts');
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
  it("a quorum queue's rabbitmq_queue_info keeps its labels from the statistics poll to the counts-only ones", async () => {
    const queue = 'tier-info-qq';
    const path = `/api/queues/%2F/${queue}`;
    await ok('PUT', path, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    // What the broker itself answers in the two lists: the flip the exporter must not pass on.
    const raw = async (query: string) => (await ok<{ name: string; exclusive: unknown }[]>('GET', `/api/queues/%2F?${query}`)).find((q) => q.name === queue)?.exclusive;
    expect(await raw('columns=name,exclusive')).toBe(false);
    expect([null, undefined, false]).toContain(await raw('disable_stats=true&enable_queue_totals=true'));
    const memory = new Map<string, unknown>();
    // All labels but state: on 3.10.8 the statistics list gives a new idle quorum queue's state as
    // "" or "live" for a while, the counts-only list "running" (seen here; not this defect, still open).
    const info = async () =>
      (await collect({ per_vhost: false, queues: { include: `^${queue}$` } }, memory)).family('rabbitmq_queue_info').map(({ labels: { state: _state, ...labels } }) => labels);
    const statistics = await info();
    expect(statistics).toHaveLength(1);
    expect(statistics[0]!.exclusive).toBe('false');
    for (let i = 1; i <= 3; i++) expect(await info(), `counts-only poll ${i}`).toEqual(statistics);
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
