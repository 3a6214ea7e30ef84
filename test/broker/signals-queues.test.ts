// The queue signals (docs/signals.md) against the private RabbitMQ node: each situation made for
// real (a consumer that never acks, a queue dead-lettering into another by policy, a max-length
// queue filling) and the values checked against rabbitmqctl and the API.
import { afterAll, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import type { RunResult } from '../support/run-collector.js';
import { queueReadings } from './support/queue-readings.js';
import { describeWithBroker, type BrokerHandle } from './support/with-broker.js';

type Json = Record<string, unknown>;
const POLICY = 'sig-dead-letter';

describeWithBroker('queue signals on a real broker', (broker: BrokerHandle) => {
  const { request, ok, connect, collect, fromCtl } = queueReadings(broker);
  const options = (include: string) => ({ per_vhost: false, signals: true, stats_every: 1, stuck_after: 2, signals_window: 50, queues: { include } });
  const queuePath = (name: string) => `/api/queues/%2F/${name}`;
  const declare = async (name: string, args: Json = {}) => {
    await request('DELETE', queuePath(name));
    await ok('PUT', queuePath(name), { durable: false, auto_delete: false, arguments: args });
  };
  afterAll(async () => {
    await request('DELETE', `/api/policies/%2F/${POLICY}`).catch(() => undefined);
    for (const name of ['sig-stuck', 'sig-src', 'sig-dead', 'sig-limit']) await request('DELETE', queuePath(name)).catch(() => undefined);
    await request('DELETE', '/api/exchanges/%2F/sig-dlx').catch(() => undefined);
  });

  it('a consumer that takes messages and never acks: stuck after N statistics polls, counted per vhost; wait +Inf, no progress', async () => {
    const queue = 'sig-stuck';
    await declare(queue);
    const conn = await connect();
    try {
      const pub = await conn.createConfirmChannel();
      for (let i = 0; i < 6; i++) pub.sendToQueue(queue, Buffer.from('x'));
      await pub.waitForConfirms();
      const ch = await conn.createChannel();
      await ch.prefetch(4);
      await ch.consume(queue, () => undefined, { noAck: false }); // takes 4, acks none
      const expected = { messages: 6, ready: 2, unacked: 4, consumers: 1 };
      await eventually(async () => {
        expect(await fromCtl('/', queue)).toEqual(expected);
        return true;
      }, 30_000, 'rabbitmqctl showing 4 unacked, 2 ready');
      // The statistics list shows the deliveries on the queue's statistics tick: wait for them.
      await eventually(async () => {
        const q = await ok<Json>('GET', `${queuePath(queue)}?columns=messages_unacknowledged,message_stats`);
        expect([q.messages_unacknowledged, (q.message_stats as Json | undefined)?.deliver_get]).toEqual([4, 4]);
        return true;
      }, 30_000, 'the API counting 4 deliveries and 4 unacked');
      const memory = new Map<string, unknown>();
      const polls: RunResult[] = [];
      for (let i = 0; i < 3; i++) polls.push(await collect(options('^sig-stuck$'), memory));
      const labels = { vhost: '/', queue };
      expect(polls.map((r) => r.value('rabbitmq_queue_consumers_stuck', labels))).toEqual([0, 0, 1]);
      expect(polls[2]!.value('rabbitmq_vhost_queues_consumers_stuck', { vhost: '/' })).toBe(1);
      expect(polls[2]!.value('rabbitmq_queue_unacked_stalled_seconds', labels)).toBeGreaterThan(0);
      expect(polls[2]!.value('rabbitmq_queue_without_progress_seconds', labels)).toBeGreaterThan(0);
      // 2 ready, nothing drained over the window: the wait has no end.
      expect(polls[2]!.value('rabbitmq_queue_estimated_wait_seconds', labels)).toBe(Number.POSITIVE_INFINITY);
      const api = await ok<Json>('GET', `${queuePath(queue)}?columns=message_stats`);
      expect((api.message_stats as Json).ack ?? 0).toBe(0);
      expect(await fromCtl('/', queue)).toEqual(expected);
    } finally {
      await conn.close();
    }
  });

  it('a queue dead-lettering into another by policy: the target is found through the policy and the exchange\'s binding', async () => {
    await ok('PUT', '/api/exchanges/%2F/sig-dlx', { type: 'fanout', durable: false });
    await declare('sig-dead');
    await ok('POST', '/api/bindings/%2F/e/sig-dlx/q/sig-dead', { routing_key: '' });
    await declare('sig-src');
    await ok('PUT', `/api/policies/%2F/${POLICY}`, { pattern: '^sig-src$', 'apply-to': 'queues', definition: { 'dead-letter-exchange': 'sig-dlx', 'message-ttl': 1 } });
    await eventually(async () => {
      const q = await ok<Json>('GET', `${queuePath('sig-src')}?columns=policy,effective_policy_definition`);
      expect(q.policy).toBe(POLICY);
      expect(q.effective_policy_definition).toMatchObject({ 'dead-letter-exchange': 'sig-dlx' });
      return true;
    }, 30_000, 'the policy applied to sig-src');
    const conn = await connect();
    try {
      const pub = await conn.createConfirmChannel();
      for (let i = 0; i < 3; i++) pub.sendToQueue('sig-src', Buffer.from('x'));
      await pub.waitForConfirms();
    } finally {
      await conn.close();
    }
    // Expired after 1 ms, dead-lettered into sig-dead: rabbitmqctl shows them there.
    await eventually(async () => {
      expect((await fromCtl('/', 'sig-dead')).messages).toBe(3);
      return true;
    }, 30_000, 'the 3 dead letters in sig-dead');
    // The list shows them on the queue's statistics tick.
    const r = await eventually(async () => {
      const run = await collect(options('^sig-'));
      expect(run.value('rabbitmq_queue_messages', { vhost: '/', queue: 'sig-dead' })).toBe(3);
      return run;
    }, 30_000, 'the list showing the 3 dead letters');
    const targets = r.family('rabbitmq_queue_dead_letter_target_info').map((s) => s.labels);
    expect(targets).toEqual([{ vhost: '/', queue: 'sig-dead', dead_letter_exchange: 'sig-dlx' }]);
    // The bindings of the dead-letter exchange, and nothing else, were asked for.
    expect(r.requests.filter((q) => q.path.includes('/bindings')).map((q) => q.path)).toEqual(['/api/exchanges/%2F/sig-dlx/bindings/source']);
    // A counts-only poll between (3.10's list then lacks effective_policy_definition): the target
    // stays, from the policy as the statistics poll saw it, and no bindings are read again.
    const memory = new Map<string, unknown>();
    const tiered = { ...options('^sig-'), stats_every: 2 };
    await collect(tiered, memory);
    const countsOnly = await collect(tiered, memory);
    expect(countsOnly.requests.some((q) => q.query.disable_stats === 'true')).toBe(true);
    expect(countsOnly.family('rabbitmq_queue_dead_letter_target_info').map((s) => s.labels)).toEqual(targets);
    expect(countsOnly.requests.filter((q) => q.path.includes('/bindings'))).toEqual([]);
  });

  it('a max-length queue filling: fill ratio from rabbitmqctl\'s ready count, time to full from the growth, 0 at the limit', async () => {
    const queue = 'sig-limit';
    await declare(queue, { 'x-max-length': 10 });
    const labels = { vhost: '/', queue };
    const memory = new Map<string, unknown>();
    const publish = async (n: number) => {
      const conn = await connect();
      try {
        const ch = await conn.createConfirmChannel();
        for (let i = 0; i < n; i++) ch.sendToQueue(queue, Buffer.from('x'));
        await ch.waitForConfirms();
      } finally {
        await conn.close();
      }
    };
    // Polls until the list shows `ready` (the list refreshes on the queue's statistics tick).
    const pollUntil = (ready: number) =>
      eventually(async () => {
        const r = await collect(options('^sig-limit$'), memory);
        expect(r.value('rabbitmq_queue_messages_ready', labels)).toBe(ready);
        return r;
      }, 30_000, `the list showing ${ready} ready`);
    await publish(4);
    const first = await pollUntil(4);
    expect(first.value('rabbitmq_queue_length_limit_ratio', labels)).toBe((await fromCtl('/', queue)).ready! / 10);
    await publish(4);
    const second = await pollUntil(8);
    expect((await fromCtl('/', queue)).ready).toBe(8);
    expect(second.value('rabbitmq_queue_length_limit_ratio', labels)).toBe(0.8);
    const toFull = second.value('rabbitmq_queue_length_limit_time_to_full_seconds', labels)!;
    expect(toFull).toBeGreaterThan(0);
    expect(toFull).toBeLessThan(Number.POSITIVE_INFINITY);
    await publish(5); // the default overflow drops from the head: the queue stays at 10
    const full = await pollUntil(10);
    expect((await fromCtl('/', queue)).ready).toBe(10);
    expect(full.value('rabbitmq_queue_length_limit_ratio', labels)).toBe(1);
    expect(full.value('rabbitmq_queue_length_limit_time_to_full_seconds', labels)).toBe(0);
  });
});
