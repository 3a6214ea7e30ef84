// The queue collector against recorded answers of RabbitMQ 3.10.8 (test/fixtures). Every
// literal below was read off the fixture JSON by hand (jq/python), not from the collector.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BrokerInfo } from '../../../../src/broker/broker-info.js';
import { ManagementError } from '../../../../src/broker/errors.js';
import { queuesCollector } from '../../../../src/collectors/queues/collector.js';
import { fakeApi, NOT_FOUND } from '../../../support/fake-broker-api.js';
import { BROKER_3_10_8, runCollector, type RunResult } from '../../../support/run-collector.js';
import { type Q, FULL, VH1, TOTALS, CONSUMERS, BROKER_STATS_OFF, listRoute, run, series, warnings, q0, q10 } from './queue-fixtures.js';

describe('queues: counters across polls', () => {
  it('served counters never go down; a failed poll leaves the state as it was', async () => {
    const memory = new Map<string, unknown>();
    const at = (publish: number, ack?: number) => [{ ...FULL[0]!, message_stats: { publish, ...(ack === undefined ? {} : { ack }) } }];
    const poll = async (items: Q[] | (() => never)) => runCollector(queuesCollector, { api: fakeApi({ '/api/queues': items }), options: { per_vhost: false, stats_every: 1 }, memory });
    const served = (r: RunResult) => [r.value('rabbitmq_queue_messages_published_total', q0), r.value('rabbitmq_queue_messages_acked_total', q0)];

    expect(served(await poll(at(100, 90)))).toEqual([100, 90]);
    expect(served(await poll(at(40, 30)))).toEqual([100, 90]); // raw went down: keep the height
    expect(served(await poll(at(50, 35)))).toEqual([110, 95]); // and grow from there
    await expect(poll(() => { throw new ManagementError('timeout', '/api/queues', 'no answer'); })).rejects.toThrow();
    expect(served(await poll(at(20, 35)))).toEqual([110, 95]);
    expect(served(await poll(at(25)))).toEqual([115, undefined]); // ack vanished: forgotten
    expect(served(await poll(at(26, 5)))).toEqual([116, 5]); // and starts again from the raw value
    // Gauges are not touched.
    expect((await poll(at(26, 5))).value('rabbitmq_queue_messages', q0)).toBe(4);
  });
});

describe('queues: rabbitmq_queue_info across the tiers', () => {
  it("keeps each queue's labels from a statistics poll to the counts-only polls (quorum queues: exclusive null in the counts-only list, false in the statistics one)", async () => {
    const memory = new Map<string, unknown>();
    const api = fakeApi({ '/api/queues': (query: Record<string, string>) => listRoute(query.disable_stats === 'true' ? TOTALS : FULL)(query), '/api/consumers': () => CONSUMERS });
    const poll = () => runCollector(queuesCollector, { api, options: { per_vhost: false }, memory });
    const infoOf = (r: RunResult) => new Map(r.family('rabbitmq_queue_info').map((sample) => [sample.labels.queue, sample.labels]));
    const statistics = infoOf(await poll());
    const countsOnly = infoOf(await poll());
    expect(TOTALS.filter((q) => q.type === 'quorum' && q.exclusive === null)).toHaveLength(21);
    expect(countsOnly.size).toBe(100);
    for (const [queue, labels] of statistics) expect(countsOnly.get(queue), queue).toEqual(labels);
    expect(countsOnly.get(TOTALS.find((q) => q.type === 'quorum')!.name as string)?.exclusive).toBe('false');
  });
});

describe('queues: fields held from the statistics poll', () => {
  it('stand in only where a counts-only record lacks them: a field it carries is served fresh', async () => {
    const memory = new Map<string, unknown>();
    const withPolicy = (list: Q[], limit: number | undefined) =>
      list.map((q) => (q.name === 'q0' ? { ...q, effective_policy_definition: limit === undefined ? undefined : { 'max-length': limit } } : q));
    let statistics = withPolicy(FULL, 40);
    let countsOnly = withPolicy(TOTALS, 20);
    const api = fakeApi({ '/api/queues': (query: Record<string, string>) => listRoute(query.disable_stats === 'true' ? countsOnly : statistics)(query), '/api/consumers': () => CONSUMERS });
    const limit = async () => (await runCollector(queuesCollector, { api, options: { per_vhost: false, limits: true }, memory })).value('rabbitmq_queue_max_length_messages', q0);
    expect(await limit()).toBe(40);
    // The counts-only list carries it (changed since): that, not the held one.
    expect(await limit()).toBe(20);
    // It lacks it: the statistics poll's stands in.
    countsOnly = withPolicy(TOTALS, undefined);
    expect(await limit()).toBe(40);
    statistics = withPolicy(FULL, 30);
    expect(await limit()).toBe(40);
    // The next statistics poll (the 5th) holds its own.
    expect(await limit()).toBe(30);
  });
});

describe('queues: tiers of freshness (stats_every)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const q100 = { vhost: 'vh0', queue: 'q100' };
  const classic = { vhost: 'vh0', type: 'classic' };
  const quorum = { vhost: 'vh0', type: 'quorum' };
  /** The recorded list, with q0's publish counter and message count set per poll. */
  const withQ0 = (publish: number, messages: number, list: Q[] = FULL) =>
    list.map((q) => (q.name === 'q0' ? { ...q, messages, message_stats: { ...(q.message_stats as Q), publish } } : q));
  const consumerOn = (...names: string[]) => names.map((name) => ({ queue: { name, vhost: 'vh0' } }));
  const modeOf = (call: { query: Record<string, string> }) => (call.query.disable_stats === 'true' ? 'totals' : 'columns');

  it('fetches statistics every 4th poll; the polls between ask for counts and /api/consumers and serve the held statistics unchanged', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const memory = new Map<string, unknown>();
    let items: Q[] = withQ0(100, 4);
    let consumers: Q[] = consumerOn('q0', 'q100');
    const api = fakeApi({ '/api/queues': (query: Record<string, string>) => listRoute(items)(query), '/api/consumers': () => consumers });
    const poll = () => runCollector(queuesCollector, { api, options: { per_vhost: false }, memory });
    const memoryOfQ0 = FULL[0]!.memory as number;

    vi.setSystemTime(1_000_000);
    const first = await poll();
    expect(first.value('rabbitmq_queue_messages_published_total', q0)).toBe(100);
    expect(first.value('rabbitmq_queue_statistics_age_seconds')).toBe(0);
    expect(first.value('rabbitmq_queue_consumers', q0)).toBe(1);
    const heldQuorumMemory = first.value('rabbitmq_vhost_queue_process_memory_bytes', quorum);
    expect(heldQuorumMemory).toBeGreaterThan(0);

    // Between statistics polls: q0 published 100 more and holds 7 messages, q10 is deleted, a
    // queue "fresh" is declared, and q0 has a second consumer.
    items = withQ0(200, 7, [...FULL.filter((q) => q.name !== 'q10'), { ...FULL[1]!, name: 'fresh', messages: 3 }]);
    consumers = consumerOn('q0', 'q0', 'q100');
    const rounds: RunResult[] = [];
    // Time passes on both clocks (the age is measured on the monotonic one).
    for (const at of [1_030_000, 1_060_000, 1_090_000]) {
      vi.advanceTimersByTime(at - Date.now());
      rounds.push(await poll());
    }
    for (const [i, r] of rounds.entries()) {
      expect(r.value('rabbitmq_queue_messages', q0)).toBe(7); // counts: fresh every poll
      expect(r.value('rabbitmq_queue_consumers', q0)).toBe(2); // from /api/consumers
      expect(r.value('rabbitmq_queue_consumers', q100)).toBe(1);
      expect(r.value('rabbitmq_queue_messages_published_total', q0)).toBe(100); // held, not 200, not 0
      expect(r.value('rabbitmq_queue_process_memory_bytes', q0)).toBe(memoryOfQ0);
      expect(r.value('rabbitmq_vhost_queue_process_memory_bytes', quorum)).toBe(heldQuorumMemory);
      expect(r.value('rabbitmq_vhost_queue_consumers', quorum)).toBe(3);
      expect(r.value('rabbitmq_vhost_queue_consumers', classic)).toBe(0);
      expect(r.value('rabbitmq_queue_statistics_age_seconds')).toBe(30 * (i + 1));
      expect(r.value('rabbitmq_queue_messages', q10)).toBeUndefined(); // gone: nothing of it is served
      expect(r.value('rabbitmq_queue_messages_published_total', q10)).toBeUndefined();
      expect(r.value('rabbitmq_queue_messages', { vhost: 'vh0', queue: 'fresh' })).toBe(3);
      expect(r.value('rabbitmq_queue_process_memory_bytes', { vhost: 'vh0', queue: 'fresh' })).toBeUndefined(); // not fetched yet
      expect(r.value('rabbitmq_queue_query_info', { mode: 'totals', per_vhost: 'false', paged: 'false' })).toBe(1);
    }

    // The 5th poll fetches the statistics again; the broker's counter fell (a leader moved):
    // the served one keeps the height it had before the counts-only polls, and grows from there.
    items = withQ0(50, 7, items);
    vi.advanceTimersByTime(1_120_000 - Date.now());
    const fifth = await poll();
    expect(fifth.value('rabbitmq_queue_messages_published_total', q0)).toBe(100);
    expect(fifth.value('rabbitmq_queue_process_memory_bytes', { vhost: 'vh0', queue: 'fresh' })).toBe(FULL[1]!.memory);
    expect(fifth.value('rabbitmq_queue_statistics_age_seconds')).toBe(0);
    items = withQ0(60, 7, items);
    vi.advanceTimersByTime(1_150_000 - Date.now());
    expect((await poll()).value('rabbitmq_queue_messages_published_total', q0)).toBe(100); // held again

    const queueCalls = api.calls.filter((c) => c.path === '/api/queues');
    expect(queueCalls.map(modeOf)).toEqual(['columns', 'totals', 'totals', 'totals', 'columns', 'totals']);
    expect(api.calls.filter((c) => c.path === '/api/consumers').length).toBe(4);
    expect(String(queueCalls[1]!.query.columns).split(',')).not.toContain('consumers');
  });

  it('a statistics poll that fails is tried again by the next poll; failed polls do not count', async () => {
    const memory = new Map<string, unknown>();
    let fail = false;
    const api = fakeApi({
      '/api/queues': (query: Record<string, string>) => {
        if (fail) throw new ManagementError('timeout', '/api/queues', 'no answer');
        return listRoute(FULL)(query);
      },
      '/api/consumers': [],
    });
    const poll = () => runCollector(queuesCollector, { api, options: { per_vhost: false, stats_every: 2 }, memory });
    await poll(); // statistics
    fail = true;
    await expect(poll()).rejects.toThrow();
    fail = false;
    await poll(); // counts: the failed poll did not count
    fail = true;
    await expect(poll()).rejects.toThrow();
    fail = false;
    await poll(); // statistics again
    expect(api.calls.filter((c) => c.path === '/api/queues').map(modeOf)).toEqual(['columns', 'totals', 'totals', 'columns', 'columns']);
  });

  it('stats_every 1 fetches statistics every poll (no /api/consumers); 0 never (no statistics series at all)', async () => {
    const every = async (statsEvery: number) => {
      const memory = new Map<string, unknown>();
      const api = fakeApi({ '/api/queues': listRoute(FULL), '/api/consumers': CONSUMERS });
      let last: RunResult | undefined;
      for (let i = 0; i < 3; i++) last = await runCollector(queuesCollector, { api, options: { per_vhost: false, stats_every: statsEvery }, memory });
      return { api, last: last! };
    };
    const always = await every(1);
    expect(always.api.calls.map((c) => c.path)).toEqual(['/api/queues', '/api/queues', '/api/queues']);
    expect(always.api.calls.map(modeOf)).toEqual(['columns', 'columns', 'columns']);
    const never = await every(0);
    expect(never.api.calls.filter((c) => c.path === '/api/queues').map(modeOf)).toEqual(['totals', 'totals', 'totals']);
    for (const absent of ['rabbitmq_queue_messages_published_total', 'rabbitmq_queue_process_memory_bytes', 'rabbitmq_vhost_queue_messages_bytes', 'rabbitmq_queue_statistics_age_seconds']) {
      expect(series(never.last, absent), absent).toBe(0);
    }
    expect(never.last.value('rabbitmq_queue_consumers', q0)).toBe(1);
    expect(never.last.value('rabbitmq_queue_messages', q0)).toBe(4);
  });

  it('stats_every 1 holds no statistics for counts-only polls; changed to 4, the next poll fetches them again before any counts-only poll', async () => {
    const memory = new Map<string, unknown>();
    const items = withQ0(100, 4);
    const api = fakeApi({ '/api/queues': listRoute(items), '/api/consumers': CONSUMERS });
    const poll = (statsEvery: number) => runCollector(queuesCollector, { api, options: { per_vhost: false, stats_every: statsEvery }, memory });
    await poll(1);
    await poll(1);
    const rounds = [await poll(4), await poll(4), await poll(4)];
    expect(api.calls.filter((c) => c.path === '/api/queues').map(modeOf)).toEqual(['columns', 'columns', 'columns', 'totals', 'totals']);
    // The counts-only polls serve the statistics of the poll at stats_every 4, which held them.
    for (const r of rounds) expect(r.value('rabbitmq_queue_messages_published_total', q0)).toBe(100);
  });

  it('statistics switched off on the broker after a statistics poll: the held statistics and their age are no longer served', async () => {
    const memory = new Map<string, unknown>();
    const api = fakeApi({ '/api/queues': listRoute(FULL), '/api/consumers': CONSUMERS });
    const poll = (broker: BrokerInfo) => runCollector(queuesCollector, { api, broker, options: { per_vhost: false }, memory });
    const before = await poll(BROKER_3_10_8);
    expect(before.value('rabbitmq_queue_statistics_age_seconds')).toBe(0);
    expect(series(before, 'rabbitmq_queue_messages_published_total')).toBeGreaterThan(0);
    const after = await poll(BROKER_STATS_OFF);
    for (const absent of ['rabbitmq_queue_messages_published_total', 'rabbitmq_queue_process_memory_bytes', 'rabbitmq_vhost_queue_messages_bytes', 'rabbitmq_queue_statistics_age_seconds']) {
      expect(series(after, absent), absent).toBe(0);
    }
    expect(after.value('rabbitmq_queue_messages', q0)).toBe(before.value('rabbitmq_queue_messages', q0));
  });

  it('/api/consumers answering 404: counts are served without per-queue consumers, with one warning', async () => {
    const memory = new Map<string, unknown>();
    const api = fakeApi({ '/api/queues': listRoute(TOTALS), '/api/consumers': NOT_FOUND });
    const poll = () => runCollector(queuesCollector, { api, options: { per_vhost: false, mode: 'totals' }, memory });
    const first = await poll();
    const second = await poll();
    expect(first.value('rabbitmq_queue_messages', q0)).toBe(4);
    expect(series(first, 'rabbitmq_queue_consumers')).toBe(0);
    expect(series(first, 'rabbitmq_vhost_queue_consumers')).toBe(0);
    expect(warnings(first).map((l) => l.msg)).toEqual(['/api/consumers answered 404: per-queue consumer counts are not served (mode totals fetches no statistics)']);
    expect(warnings(second)).toEqual([]);
  });

  it('an /api/consumers answer that is not a list fails the poll with a clear error', async () => {
    const r = run({ '/api/queues': listRoute(TOTALS), '/api/consumers': { error: 'x' } }, { per_vhost: false, mode: 'totals' }).result;
    await expect(r).rejects.toThrow('/api/consumers did not answer a JSON list');
  });

  it('a vhost unread at a statistics poll keeps the statistics held of it for the counts-only polls that follow', async () => {
    const memory = new Map<string, unknown>();
    let vh1Fails = false;
    const api = fakeApi({
      '/api/vhosts': [{ name: 'vh0' }, { name: 'vh1' }],
      '/api/queues/vh0': listRoute(FULL),
      '/api/queues/vh1': (query: Record<string, string>) => {
        if (vh1Fails) throw new ManagementError('http_status', '/api/queues/vh1', 'HTTP 500', 500);
        return listRoute(VH1)(query);
      },
      '/api/consumers': [],
    });
    const poll = () => runCollector(queuesCollector, { api, options: { stats_every: 3 }, memory });
    const q111 = { vhost: 'vh1', queue: 'q111' };
    const published = (r: RunResult) => [r.value('rabbitmq_queue_messages_published_total', q0), r.value('rabbitmq_queue_messages_published_total', q111)];
    const fromFixtures = [FULL[0]!.message_stats, VH1.find((q) => q.name === 'q111')!.message_stats].map((stats) => (stats as Q).publish);
    expect(fromFixtures).toEqual([expect.any(Number), 3175]);
    expect(published(await poll())).toEqual(fromFixtures); // 1: statistics
    expect(published(await poll())).toEqual(fromFixtures); // 2: counts, statistics held
    await poll(); // 3: counts
    vh1Fails = true;
    const fourth = await poll(); // 4: statistics, vh1 unread
    expect(fourth.family('rabbitmq_exporter_collector_vhost_failed').map((s) => s.labels.vhost)).toEqual(['vh1']);
    expect(published(fourth)).toEqual([fromFixtures[0], undefined]);
    vh1Fails = false;
    await poll(); // 5: counts; vh1 rests one poll after its failure
    const sixth = await poll(); // 6: counts; vh1 answers again, with the statistics held of it since the first poll
    expect(sixth.value('rabbitmq_queue_messages', q111)).toBe(VH1.find((q) => q.name === 'q111')!.messages);
    expect(published(sixth)).toEqual(fromFixtures);
    const modes = api.calls.filter((c) => c.path === '/api/queues/vh1').map((c) => (c.query.disable_stats === 'true' ? 'totals' : 'columns'));
    expect(modes).toEqual(['columns', 'totals', 'totals', 'columns', 'totals']);
  });
});
