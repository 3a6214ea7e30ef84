// The queue collector against recorded answers of RabbitMQ 3.10.8 (test/fixtures). Every
// literal below was read off the fixture JSON by hand (jq/python), not from the collector.
import { describe, expect, it } from 'vitest';
import { queueOptionsSchema } from '../../../../src/collectors/queues/collector.js';
import type { RunResult } from '../../../support/run-collector.js';
import { type Q, FULL, listRoute, run, series, warnings } from './queue-fixtures.js';

// ---------------------------------------------------------------------------------------------

describe('queues: filters and the cap', () => {
  const base = { ...FULL[1]! };
  const MIXED: Q[] = [
    { ...base, name: 'orders.a', messages: 1, messages_ready: 1, messages_unacknowledged: 0 },
    { ...base, name: 'orders.b', messages: 2, messages_ready: 2, messages_unacknowledged: 0, exclusive: true },
    { ...base, name: 'orders.c', messages: 4, messages_ready: 3, messages_unacknowledged: 1, auto_delete: true },
    { ...base, name: 'orders.tmp', messages: 8, messages_ready: 8, messages_unacknowledged: 0 },
    { ...base, name: 'billing', messages: 16, messages_ready: 16, messages_unacknowledged: 0 },
  ];
  const agg = (r: RunResult) => ({
    queues: r.value('rabbitmq_vhost_queues', { vhost: 'vh0', type: 'classic' }),
    messages: r.value('rabbitmq_vhost_queue_messages', { vhost: 'vh0', type: 'classic' }),
    ready: r.value('rabbitmq_vhost_queue_messages_ready', { vhost: 'vh0', type: 'classic' }),
    unacked: r.value('rabbitmq_vhost_queue_messages_unacked', { vhost: 'vh0', type: 'classic' }),
    withoutConsumers: r.value('rabbitmq_vhost_queues_ready_without_consumers', { vhost: 'vh0', type: 'classic' }),
  });
  const ALL = { queues: 5, messages: 31, ready: 30, unacked: 1, withoutConsumers: 5 };
  const names = (r: RunResult) => r.family('rabbitmq_queue_messages').map((s) => s.labels.queue).sort();

  it('include/exclude, skip_exclusive, skip_auto_delete filter per-queue series, not the aggregates', async () => {
    const r = await run({ '/api/queues': listRoute(MIXED) }, {
      per_vhost: false, queues: { include: '^orders\\.', exclude: '\\.tmp$' }, skip_exclusive: true, skip_auto_delete: true,
    }).result;
    expect(names(r)).toEqual(['orders.a']);
    expect(r.family('rabbitmq_queue_info').map((s) => s.labels.queue)).toEqual(['orders.a']);
    expect(r.value('rabbitmq_queue_series_filtered')).toBe(4);
    expect(r.value('rabbitmq_queue_series_capped')).toBe(0);
    expect(agg(r)).toEqual(ALL);

    const onlyFlags = await run({ '/api/queues': listRoute(MIXED) }, { per_vhost: false, skip_exclusive: true }).result;
    expect(names(onlyFlags)).toEqual(['billing', 'orders.a', 'orders.c', 'orders.tmp']);
  });

  it('rabbitmq_vhost_queues_per_node counts every queue per vhost and node (a replicated queue at its leader), filtered and capped or not; absent while some vhosts only are watched', async () => {
    const placed: Q[] = [
      { ...MIXED[0]!, node: 'rabbit@a' },
      { ...MIXED[1]!, node: 'rabbit@a' },
      { ...MIXED[2]!, node: 'rabbit@b' },
      { ...MIXED[3]!, type: 'quorum', node: 'rabbit@a', leader: 'rabbit@b' },
      { ...MIXED[4]!, node: undefined, leader: undefined },
    ];
    const perNode = (r: RunResult) => Object.fromEntries(r.family('rabbitmq_vhost_queues_per_node').map((sample) => [`${sample.labels.vhost} ${sample.labels.node}`, sample.value]));
    const r = await run({ '/api/queues': listRoute(placed) }, { per_vhost: false, max_queues: 1, queues: { include: '^orders\\.' } }).result;
    // The queue without a node counts on none.
    expect(perNode(r)).toEqual({ 'vh0 rabbit@a': 2, 'vh0 rabbit@b': 2 });
    const someVhosts = await run({ '/api/queues': listRoute(placed) }, { per_vhost: false, vhosts: { include: '^vh0$' } }).result;
    expect(someVhosts.family('rabbitmq_vhost_queues_per_node')).toEqual([]);
    expect(someVhosts.value('rabbitmq_vhost_queues', { vhost: 'vh0', type: 'classic' })).toBe(4);
  });

  it('max_queues caps the per-queue series and counts what it cut; aggregates cover all', async () => {
    const r = await run({ '/api/queues': listRoute(MIXED) }, { per_vhost: false, max_queues: 2, rank_by: 'none' }).result;
    expect(names(r)).toEqual(['orders.a', 'orders.b']);
    expect(r.value('rabbitmq_queue_series_capped')).toBe(3);
    expect(r.value('rabbitmq_queue_series_filtered')).toBe(0);
    expect(agg(r)).toEqual(ALL);
    expect(warnings(r).map((l) => l.msg)).toEqual(['per-queue series capped by collectors.queues.max_queues']);

    const big = await run({ '/api/queues': listRoute(FULL) }, { per_vhost: false, max_queues: 10, queues: { exclude: '^q0$' } }).result;
    expect(series(big, 'rabbitmq_queue_messages')).toBe(10);
    expect(big.value('rabbitmq_queue_series_capped')).toBe(89);
    expect(big.value('rabbitmq_queue_series_filtered')).toBe(1);
    expect(big.value('rabbitmq_vhost_queues', { vhost: 'vh0', type: 'quorum' })).toBe(21);
    expect(big.value('rabbitmq_vhost_queue_messages', { vhost: 'vh0', type: 'quorum' })).toBe(4);
    expect(big.value('rabbitmq_vhost_queue_consumers', { vhost: 'vh0', type: 'quorum' })).toBe(2);
  });
});

describe('queues: max_queues ranks the queues it keeps (rank_by, always_serve)', () => {
  const base = { ...FULL[1]!, message_stats: undefined };
  const queue = (name: string, messages: number, publishRate?: number): Q => ({
    ...base,
    name,
    messages,
    messages_ready: messages,
    messages_unacknowledged: 0,
    ...(publishRate === undefined ? {} : { message_stats: { publish: 10, publish_details: { rate: publishRate } } }),
  });
  const served = (r: RunResult) => r.family('rabbitmq_queue_messages').map((s) => s.labels.queue);
  const poll = (items: Q[], options: Record<string, unknown>, memory = new Map<string, unknown>()) =>
    run({ '/api/queues': listRoute(items), '/api/consumers': [] }, { per_vhost: false, ...options }, { memory }).result;

  it('backlog (the default): the max_queues queues with most messages, written in listing order; every queue still in the aggregates', async () => {
    const items = [queue('a', 5), queue('b', 50), queue('c', 0), queue('d', 500), queue('e', 7)];
    const r = await poll(items, { max_queues: 3 });
    expect(served(r)).toEqual(['b', 'd', 'e']);
    expect(r.family('rabbitmq_queue_info').map((s) => s.labels.queue)).toEqual(['b', 'd', 'e']);
    expect(r.value('rabbitmq_queue_series_capped')).toBe(2);
    expect(r.value('rabbitmq_vhost_queues', { vhost: 'vh0', type: 'classic' })).toBe(5);
    expect(r.value('rabbitmq_vhost_queue_messages', { vhost: 'vh0', type: 'classic' })).toBe(562);
    expect(warnings(r).map((l) => [l.msg, l.rank_by])).toEqual([['per-queue series capped by collectors.queues.max_queues', 'backlog']]);
  });

  it('always_serve: named queues are served whatever their rank and are not counted in the cap', async () => {
    const items = [queue('quiet', 0), queue('b', 50), queue('c', 1), queue('d', 500)];
    const r = await poll(items, { max_queues: 1, always_serve: ['quiet'] });
    expect(served(r)).toEqual(['quiet', 'd']);
    expect(r.value('rabbitmq_queue_series_capped')).toBe(2);
    const patterns = await poll(items, { max_queues: 1, always_serve: { include: '^[bc]$' } });
    expect(served(patterns)).toEqual(['b', 'c', 'd']);
    expect(patterns.value('rabbitmq_queue_series_capped')).toBe(1);
  });

  it('growth: the queues whose backlog grew most since the last poll; a queue first seen ranks by its backlog', async () => {
    const memory = new Map<string, unknown>();
    const first = await poll([queue('steady', 1000), queue('rising', 10), queue('new', 0)], { max_queues: 1, rank_by: 'growth' }, memory);
    expect(served(first)).toEqual(['steady']); // no growth known yet: backlog decides
    const second = await poll([queue('steady', 1000), queue('rising', 400), queue('new', 0), queue('newer', 300)], { max_queues: 1, rank_by: 'growth' }, memory);
    expect(served(second)).toEqual(['rising']);
  });

  it('publish_rate: ranked by the API rate; counts-only polls rank by the rate of the last statistics poll', async () => {
    const memory = new Map<string, unknown>();
    const options = { max_queues: 1, rank_by: 'publish_rate', stats_every: 2 };
    const stats = await poll([queue('deep', 9000, 0.5), queue('busy', 3, 120)], options, memory);
    expect(served(stats)).toEqual(['busy']);
    const countsOnly = await poll([queue('deep', 9000), queue('busy', 3)], options, memory);
    expect(countsOnly.value('rabbitmq_queue_query_info', { mode: 'totals', per_vhost: 'false', paged: 'false' })).toBe(1);
    expect(served(countsOnly)).toEqual(['busy']);
  });

  it('a tie keeps the queues served last poll, so equal queues do not take turns', async () => {
    const memory = new Map<string, unknown>();
    const first = await poll([queue('x', 0), queue('y', 0), queue('z', 0)], { max_queues: 1 }, memory);
    expect(served(first)).toEqual(['x']);
    const reordered = await poll([queue('z', 0), queue('y', 0), queue('x', 0)], { max_queues: 1 }, memory);
    expect(served(reordered)).toEqual(['x']);
    const overtaken = await poll([queue('z', 0), queue('y', 1), queue('x', 0)], { max_queues: 1 }, memory);
    expect(served(overtaken)).toEqual(['y']);
  });

  it('none: the first max_queues listed, as before ranking existed', async () => {
    const r = await poll([queue('a', 0), queue('b', 9), queue('c', 99)], { max_queues: 2, rank_by: 'none' });
    expect(served(r)).toEqual(['a', 'b']);
  });

  it('refuses an unknown ranking, naming the allowed ones', () => {
    const parsed = queueOptionsSchema.safeParse({ rank_by: 'size' });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(/backlog.*growth.*publish_rate.*none/);
  });
});

describe('queues: streams between statistics polls', () => {
  // As 3.10 and 4.x answer: the counts-only list has no counts and no members for a stream.
  const stream = { vhost: 'vh0', name: 'events', type: 'stream', state: 'running', durable: true, arguments: {} };
  const classic = { vhost: 'vh0', name: 'jobs', type: 'classic', state: 'running', durable: true, arguments: {} };
  const statsList = [
    { ...stream, messages: 7, messages_ready: 7, messages_unacknowledged: 0, members: ['a', 'b', 'c'], online: ['a', 'b'] },
    { ...classic, messages: 3, messages_ready: 3, messages_unacknowledged: 0 },
  ];
  const countsList = [{ ...stream }, { ...classic, messages: 5, messages_ready: 5, messages_unacknowledged: 0 }];
  const route = (query: Record<string, string>) => (query.disable_stats === 'true' ? countsList : statsList);

  it('a stream keeps its counts and members from the last statistics poll; other queues have their fresh counts', async () => {
    const memory = new Map<string, unknown>();
    const poll = () => run({ '/api/queues': route, '/api/consumers': [] }, { per_vhost: false, stats_every: 2 }, { memory }).result;
    const first = await poll();
    expect(first.value('rabbitmq_queue_messages', { vhost: 'vh0', queue: 'events' })).toBe(7);
    const between = await poll();
    expect(between.value('rabbitmq_queue_query_info', { mode: 'totals', per_vhost: 'false', paged: 'false' })).toBe(1);
    expect(between.value('rabbitmq_queue_messages', { vhost: 'vh0', queue: 'events' })).toBe(7);
    expect(between.value('rabbitmq_queue_messages_ready', { vhost: 'vh0', queue: 'events' })).toBe(7);
    expect(between.value('rabbitmq_queue_members', { vhost: 'vh0', queue: 'events' })).toBe(3);
    expect(between.value('rabbitmq_queue_members_online', { vhost: 'vh0', queue: 'events' })).toBe(2);
    expect(between.value('rabbitmq_vhost_queue_messages', { vhost: 'vh0', type: 'stream' })).toBe(7);
    expect(between.value('rabbitmq_queue_messages', { vhost: 'vh0', queue: 'jobs' })).toBe(5);
    expect(between.value('rabbitmq_vhost_queue_messages', { vhost: 'vh0', type: 'classic' })).toBe(5);
  });
});
