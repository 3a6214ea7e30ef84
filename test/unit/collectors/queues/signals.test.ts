// The queue signals through the collector: the statistics tier, statistics disabled, dead-letter
// targets from arguments, policies and bindings, and a queue that goes away and comes back.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { queuesCollector } from '../../../../src/collectors/queues/collector.js';
import { fakeApi, NOT_FOUND } from '../../../support/fake-broker-api.js';
import { runCollector } from '../../../support/run-collector.js';
import { BROKER_STATS_OFF, type Q } from './queue-fixtures.js';

const work = { vhost: '/', queue: 'work' };

/** A queue record as the statistics list (with message_stats) or the counts-only list gives it. */
function queue(name: string, counts: { ready: number; unacked?: number; deliverGet?: number; ack?: number }, extra: Q = {}): Q {
  const unacked = counts.unacked ?? 0;
  const record: Q = { vhost: '/', name, type: 'classic', state: 'running', messages: counts.ready + unacked, messages_ready: counts.ready, messages_unacknowledged: unacked, arguments: {}, ...extra };
  if (counts.deliverGet !== undefined) record.message_stats = { deliver_get: counts.deliverGet, ack: counts.ack ?? 0 };
  return record;
}

/** Polls with one fake clock: `step` seconds apart; the list answers what `items()` says for the kind of request. */
function poller(items: (stats: boolean) => Q[], routes: Record<string, unknown> = {}, options: Record<string, unknown> = {}, broker?: typeof BROKER_STATS_OFF) {
  const memory = new Map<string, unknown>();
  const api = fakeApi({ '/api/queues': (query: Record<string, string>) => items(query.disable_stats !== 'true'), '/api/consumers': [], ...routes });
  return {
    api,
    async poll(step = 10) {
      vi.advanceTimersByTime(step * 1000);
      return runCollector(queuesCollector, { api, memory, options: { per_vhost: false, signals: true, ...options }, ...(broker ? { broker } : {}) });
    },
  };
}

describe('queue signals through the collector', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('estimates the wait from ready counts every poll and the drain of the statistics polls, which the polls between hold', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    let ready = 100;
    let deliverGet = 0;
    const p = poller((stats) => [queue('work', stats ? { ready, deliverGet, ack: deliverGet } : { ready })], {}, { stats_every: 2 });
    const first = await p.poll();
    expect(first.value('rabbitmq_queue_estimated_wait_seconds', work)).toBeUndefined(); // one statistics poll: no window yet
    expect(first.value('rabbitmq_queue_without_progress_seconds', work)).toBe(0);
    ready = 80;
    const second = await p.poll(); // counts only
    expect(second.value('rabbitmq_queue_estimated_wait_seconds', work)).toBeUndefined();
    deliverGet = 200; // 200 drained in the 20 s between statistics polls: 10/s
    ready = 60;
    const third = await p.poll();
    expect(third.value('rabbitmq_queue_estimated_wait_seconds', work)).toBe(6);
    ready = 30;
    const fourth = await p.poll(); // counts only: this poll's ready over the held rate
    expect(fourth.value('rabbitmq_queue_estimated_wait_seconds', work)).toBe(3);
    expect(fourth.value('rabbitmq_queue_statistics_age_seconds')).toBe(10);
  });

  it('serves the counter signals of the last statistics poll unchanged in between, and counts stuck queues per vhost', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const p = poller((stats) => [queue('work', stats ? { ready: 0, unacked: 5, deliverGet: 5, ack: 0 } : { ready: 0, unacked: 5 }), queue('fine', stats ? { ready: 0, deliverGet: 5, ack: 5 } : { ready: 0 })], {}, { stats_every: 2, stuck_after: 2 });
    const polls = [];
    for (let i = 0; i < 6; i++) polls.push(await p.poll());
    const stalled = polls.map((r) => r.value('rabbitmq_queue_unacked_stalled_seconds', work));
    expect(stalled).toEqual([0, 0, 20, 20, 40, 40]);
    const stuck = polls.map((r) => r.value('rabbitmq_queue_consumers_stuck', work));
    expect(stuck).toEqual([0, 0, 0, 0, 1, 1]);
    expect(polls.map((r) => r.value('rabbitmq_vhost_queues_consumers_stuck', { vhost: '/' }))).toEqual([0, 0, 0, 0, 1, 1]);
    expect(polls[5]!.value('rabbitmq_queue_consumers_stuck', { vhost: '/', queue: 'fine' })).toBe(0);
    expect(polls[5]!.value('rabbitmq_queue_without_progress_seconds', work)).toBe(40);
  });

  it('starts again for a queue that went away and came back, whose counters start again', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    let list = [queue('work', { ready: 3, deliverGet: 500, ack: 500 })];
    const p = poller(() => list, {}, { stats_every: 1 });
    await p.poll();
    expect((await p.poll()).value('rabbitmq_queue_estimated_wait_seconds', work)).toBe(Number.POSITIVE_INFINITY);
    list = [];
    expect((await p.poll()).value('rabbitmq_queue_estimated_wait_seconds', work)).toBeUndefined();
    list = [queue('work', { ready: 3, deliverGet: 520, ack: 520 })]; // declared again: not compared with the old counters
    expect((await p.poll()).value('rabbitmq_queue_estimated_wait_seconds', work)).toBeUndefined();
    list = [queue('work', { ready: 3, deliverGet: 530, ack: 530 })];
    expect((await p.poll()).value('rabbitmq_queue_estimated_wait_seconds', work)).toBe(3);
  });

  it('serves fill ratio and time to full from the limits; with statistics disabled, counts-based signals only', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    let ready = 100;
    const limited = () => [queue('work', { ready }, { effective_policy_definition: { 'max-length': 1000, 'max-length-bytes': 10_000 } })];
    const p = poller(limited, {}, {}, BROKER_STATS_OFF);
    const first = await p.poll();
    expect(first.value('rabbitmq_queue_length_limit_ratio', work)).toBe(0.1);
    expect(first.value('rabbitmq_queue_length_limit_time_to_full_seconds', work)).toBeUndefined();
    ready = 200;
    const second = await p.poll(); // 10/s, 800 left
    expect(second.value('rabbitmq_queue_length_limit_time_to_full_seconds', work)).toBe(80);
    for (const name of ['rabbitmq_queue_estimated_wait_seconds', 'rabbitmq_queue_without_progress_seconds', 'rabbitmq_queue_consumers_stuck', 'rabbitmq_queue_bytes_limit_ratio']) expect(second.family(name), name).toEqual([]);
  });

  it('finds dead-letter queues from arguments and policies through the bindings of their exchanges, and asks nothing without one', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const none = poller(() => [queue('work', { ready: 0, deliverGet: 0 })]);
    await none.poll();
    expect(none.api.calls.map((c) => c.path)).toEqual(['/api/queues']);

    const list = [
      queue('by-arg', { ready: 0, deliverGet: 0 }, { arguments: { 'x-dead-letter-exchange': 'dlx' } }),
      queue('by-policy', { ready: 0, deliverGet: 0 }, { effective_policy_definition: { 'dead-letter-exchange': 'pdlx' } }),
      queue('by-default', { ready: 0, deliverGet: 0 }, { arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'parked' } }),
      queue('dead', { ready: 2, deliverGet: 0 }),
      queue('fanned', { ready: 0, deliverGet: 0 }),
      queue('parked', { ready: 0, deliverGet: 0 }),
    ];
    const p = poller(() => list, {
      '/api/exchanges/%2F/dlx/bindings/source': [{ source: 'dlx', destination: 'dead', destination_type: 'queue', routing_key: '#' }],
      '/api/exchanges/%2F/pdlx/bindings/source': [{ source: 'pdlx', destination: 'fan', destination_type: 'exchange', routing_key: '' }],
      '/api/exchanges/%2F/fan/bindings/source': [{ source: 'fan', destination: 'fanned', destination_type: 'queue', routing_key: '' }],
    });
    const result = await p.poll();
    const targets = result.family('rabbitmq_queue_dead_letter_target_info').map((s) => s.labels);
    expect(targets).toEqual(expect.arrayContaining([
      { vhost: '/', queue: 'dead', dead_letter_exchange: 'dlx' },
      { vhost: '/', queue: 'fanned', dead_letter_exchange: 'pdlx' },
      { vhost: '/', queue: 'parked', dead_letter_exchange: '' },
    ]));
    expect(targets).toHaveLength(3);
    // The polls between read no bindings (stats_every 4) and serve the targets found.
    const calls = p.api.calls.length;
    const again = await p.poll();
    expect(p.api.calls.slice(calls).filter((c) => c.path.includes('bindings'))).toEqual([]);
    expect(again.family('rabbitmq_queue_dead_letter_target_info')).toHaveLength(3);
  });

  it('keeps a policy\'s dead-letter exchange through counts-only lists that lack effective_policy_definition (3.10 to 4.2.4)', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const source = (stats: boolean) => queue('src', { ready: 0 }, stats ? { effective_policy_definition: { 'dead-letter-exchange': 'pdlx' } } : {});
    const p = poller((stats) => [source(stats), queue('dead', { ready: 1 })], { '/api/exchanges/%2F/pdlx/bindings/source': [{ destination: 'dead', destination_type: 'queue' }] }, { stats_every: 2 });
    const polls = [await p.poll(), await p.poll(), await p.poll()];
    expect(polls.map((r) => r.family('rabbitmq_queue_dead_letter_target_info').length)).toEqual([1, 1, 1]);
    expect(p.api.calls.filter((c) => c.path.includes('bindings'))).toHaveLength(2); // the statistics polls only
  });

  it('treats a dead-letter exchange that does not exist as leading nowhere', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const p = poller(() => [queue('q', { ready: 0, deliverGet: 0 }, { arguments: { 'x-dead-letter-exchange': 'gone' } })], { '/api/exchanges/%2F/gone/bindings/source': NOT_FOUND });
    expect((await p.poll()).family('rabbitmq_queue_dead_letter_target_info')).toEqual([]);
  });
});
