// Roll-ups by family: rule matching, sums, counters that stay monotonic when a queue is deleted,
// depth buckets, per-queue series left out, and the configuration's errors.
import { describe, expect, it } from 'vitest';
import { queuesCollector } from '../../../../src/collectors/queues/collector.js';
import { FamilyRules, strippedFamily } from '../../../../src/collectors/queues/family-rules.js';
import { queueOptionsSchema } from '../../../../src/collectors/queues/options.js';
import { ManagementError } from '../../../../src/broker/errors.js';
import { fakeApi } from '../../../support/fake-broker-api.js';
import { runCollector } from '../../../support/run-collector.js';
import { configLoader } from '../../config/load-with.js';
import { BROKER_STATS_OFF, type Q } from './queue-fixtures.js';

function queue(name: string, ready: number, stats: { publish?: number; deliverGet?: number; ack?: number; unacked?: number; consumers?: number; head?: number } = {}, vhost = '/'): Q {
  const unacked = stats.unacked ?? 0;
  const record: Q = { vhost, name, type: 'classic', state: 'running', messages: ready + unacked, messages_ready: ready, messages_unacknowledged: unacked, consumers: stats.consumers ?? 0 };
  if (stats.publish !== undefined) record.message_stats = { publish: stats.publish, deliver_get: stats.deliverGet ?? 0, ack: stats.ack ?? 0 };
  if (stats.head !== undefined) record.head_message_timestamp = stats.head;
  return record;
}

const ORDERS = { vhost: '/', family: 'orders' };
const RULES = { rules: [{ name: 'orders', match: '^orders\\.' }, { name: 'billing', match: '^billing-', per_queue: false }] };

function poller(items: () => Q[], families: Record<string, unknown> | undefined = RULES) {
  const memory = new Map<string, unknown>();
  const api = fakeApi({ '/api/queues': () => items(), '/api/consumers': [] });
  return { poll: () => runCollector(queuesCollector, { api, memory, options: { per_vhost: false, stats_every: 1, ...(families ? { families } : {}) } }) };
}

describe('family counters across a vhost that could not be read', () => {
  it('keep its queues as they were: a queue deleted while its vhost was unread leaves its count in the total once the vhost is read again', async () => {
    const memory = new Map<string, unknown>();
    let failing = false;
    let deleted = false;
    const api = fakeApi({
      '/api/vhosts': [{ name: 'a' }, { name: 'b' }],
      '/api/queues/a': () => [queue('orders.1', 1, { publish: 10 }, 'a')],
      '/api/queues/b': () => {
        if (failing) throw new ManagementError('http_status', '/api/queues/b', 'HTTP 500', 500);
        return [queue('orders.2', 1, { publish: 20 }, 'b'), ...(deleted ? [] : [queue('orders.3', 1, { publish: 5 }, 'b')])];
      },
      '/api/consumers/a': [],
      '/api/consumers/b': [],
    });
    const published = async () => {
      const r = await runCollector(queuesCollector, { api, memory, options: { per_vhost: true, stats_every: 1, families: RULES } });
      return [r.value('rabbitmq_queue_family_messages_published_total', { vhost: 'a', family: 'orders' }), r.value('rabbitmq_queue_family_messages_published_total', { vhost: 'b', family: 'orders' })];
    };
    expect(await published()).toEqual([10, 25]);
    failing = true;
    // While it is unread, its family's series are not served (never a lower count).
    expect(await published()).toEqual([10, undefined]);
    // orders.3 is deleted while its vhost is unread: its last count stays in the family's total.
    deleted = true;
    failing = false;
    // The failed vhost is asked again after a pause of its own: the polls until then leave it unread too.
    let after = await published();
    for (let i = 0; i < 10 && after[1] === undefined; i++) after = await published();
    expect(after).toEqual([10, 25]);
  });
});

describe('family rules', () => {
  it('puts a queue in the family of the first rule that matches, else in none', () => {
    const rules = new FamilyRules(queueOptionsSchema.parse({ families: { rules: [{ name: 'a', match: '^x' }, { name: 'b', match: 'x' }], per_queue: false } }).families!);
    expect(rules.choose('xy')).toEqual({ family: 'a', perQueue: false });
    expect(rules.choose('yx')).toEqual({ family: 'b', perQueue: false });
    expect(rules.choose('y')).toBeUndefined();
  });

  it('strips numeric and UUID suffixes with the suffix rule, and names without one stay out', () => {
    expect(strippedFamily('orders.42')).toBe('orders');
    expect(strippedFamily('reply-0f8fad5b-d9cb-469f-a165-70867728950e')).toBe('reply');
    expect(strippedFamily('job-2026-11-25')).toBe('job');
    expect(strippedFamily('amq.gen-JzTY20BRgKO-HjmUJj0wLg')).toBe('amq.gen');
    expect(strippedFamily('orders')).toBeUndefined();
    expect(strippedFamily('42')).toBeUndefined();
    const rules = new FamilyRules(queueOptionsSchema.parse({ families: { rules: [{ name: 'special', match: '^orders\\.7$', per_queue: true }], strip_suffixes: true, per_queue: false } }).families!);
    expect(rules.choose('orders.7')).toEqual({ family: 'special', perQueue: true });
    expect(rules.choose('orders.8')).toEqual({ family: 'orders', perQueue: false });
    expect(rules.choose('plain')).toBeUndefined();
  });
});

describe('family roll-ups through the collector', () => {
  it('sums counts, consumers, counters and the oldest head per vhost and family', async () => {
    const p = poller(() => [
      queue('orders.1', 5, { unacked: 2, consumers: 1, publish: 10, deliverGet: 4, ack: 3, head: 1_700_000_100 }),
      queue('orders.2', 7, { consumers: 2, publish: 20, deliverGet: 6, ack: 6, head: 1_700_000_050 }),
      queue('orders.3', 1, { publish: 1 }, 'other'),
      queue('billing-1', 0, { publish: 0 }),
      queue('lonely', 3, { publish: 3 }),
    ]);
    const r = await p.poll();
    expect(r.value('rabbitmq_queue_family_queues', ORDERS)).toBe(2);
    expect(r.value('rabbitmq_queue_family_messages', ORDERS)).toBe(14);
    expect(r.value('rabbitmq_queue_family_messages_ready', ORDERS)).toBe(12);
    expect(r.value('rabbitmq_queue_family_messages_unacked', ORDERS)).toBe(2);
    expect(r.value('rabbitmq_queue_family_consumers', ORDERS)).toBe(3);
    expect(r.value('rabbitmq_queue_family_messages_published_total', ORDERS)).toBe(30);
    expect(r.value('rabbitmq_queue_family_messages_delivered_or_got_total', ORDERS)).toBe(10);
    expect(r.value('rabbitmq_queue_family_messages_acked_total', ORDERS)).toBe(9);
    expect(r.value('rabbitmq_queue_family_oldest_head_message_timestamp_seconds', ORDERS)).toBe(1_700_000_050);
    expect(r.value('rabbitmq_queue_family_queues', { vhost: 'other', family: 'orders' })).toBe(1);
    expect(r.value('rabbitmq_queue_family_queues', { vhost: '/', family: 'billing' })).toBe(1);
    expect(r.family('rabbitmq_queue_family_queues').some((s) => s.labels.family === 'lonely')).toBe(false);
    // billing has per_queue off: its queue has no per-queue series; the others keep theirs.
    expect(r.value('rabbitmq_queue_messages', { vhost: '/', queue: 'billing-1' })).toBeUndefined();
    expect(r.value('rabbitmq_queue_messages', { vhost: '/', queue: 'orders.1' })).toBe(7);
    expect(r.value('rabbitmq_queue_messages', { vhost: '/', queue: 'lonely' })).toBe(3);
    expect(r.value('rabbitmq_queue_series_rolled_up')).toBe(1);
    // The aggregates still count every queue.
    expect(r.value('rabbitmq_vhost_queues', { vhost: '/', type: 'classic' })).toBe(4);
  });

  it('keeps a family counter monotonic when a queue is deleted or its counter goes down, and counts what the others added', async () => {
    let list = [queue('orders.1', 0, { publish: 100 }), queue('orders.2', 0, { publish: 50 })];
    const p = poller(() => list);
    expect((await p.poll()).value('rabbitmq_queue_family_messages_published_total', ORDERS)).toBe(150);
    list = [queue('orders.2', 0, { publish: 60 })]; // orders.1 deleted, orders.2 published 10
    expect((await p.poll()).value('rabbitmq_queue_family_messages_published_total', ORDERS)).toBe(160);
    // Its counter went down (statistics reset, leader moved): the total keeps its height, as
    // MonotonicCounters does for per-queue counters, and grows by what is counted from then on.
    list = [queue('orders.2', 0, { publish: 5 })];
    expect((await p.poll()).value('rabbitmq_queue_family_messages_published_total', ORDERS)).toBe(160);
    list = [queue('orders.2', 0, { publish: 8 }), queue('orders.3', 0, { publish: 2 })];
    expect((await p.poll()).value('rabbitmq_queue_family_messages_published_total', ORDERS)).toBe(165);
    list = [];
    const gone = await p.poll();
    expect(gone.value('rabbitmq_queue_family_messages_published_total', ORDERS)).toBeUndefined();
    list = [queue('orders.9', 0, { publish: 4 })]; // a family that comes back starts again
    expect((await p.poll()).value('rabbitmq_queue_family_messages_published_total', ORDERS)).toBe(4);
  });

  it('serves the counters of the last statistics poll on the counts-only polls between', async () => {
    let publish = 10;
    const memory = new Map<string, unknown>();
    const api = fakeApi({ '/api/queues': (query: Record<string, string>) => [queue('orders.1', 1, query.disable_stats === 'true' ? {} : { publish })], '/api/consumers': [] });
    const poll = () => runCollector(queuesCollector, { api, memory, options: { per_vhost: false, stats_every: 2, families: RULES } });
    const first = await poll();
    expect(first.value('rabbitmq_queue_family_messages_published_total', ORDERS)).toBe(10);
    publish = 20;
    const between = await poll();
    expect(between.requests.some((call) => call.query?.disable_stats === 'true')).toBe(true);
    expect(between.value('rabbitmq_queue_family_messages_published_total', ORDERS)).toBe(10);
    expect(between.value('rabbitmq_queue_family_messages', ORDERS)).toBe(1);
    expect((await poll()).value('rabbitmq_queue_family_messages_published_total', ORDERS)).toBe(20);
  });

  it('counts queues by depth per vhost, every bucket served', async () => {
    const depths = [0, 0, 1, 10, 11, 1000, 1001, 999_999, 1_000_000, 5_000_000];
    const r = await poller(() => depths.map((n, i) => queue(`q${i}`, n)))
      .poll();
    const bucket = (depth: string) => r.value('rabbitmq_vhost_queues_by_depth', { vhost: '/', depth });
    expect(['0', '1-10', '11-100', '101-1000', '1001-10000', '10001-100000', '100001-999999', '1000000+'].map(bucket)).toEqual([2, 2, 1, 1, 1, 0, 1, 2]);
  });

  it('serves nothing of it by default', async () => {
    const memory = new Map<string, unknown>();
    const api = fakeApi({ '/api/queues': [queue('orders.1', 1, { publish: 1 })], '/api/consumers': [] });
    const r = await runCollector(queuesCollector, { api, memory, options: { per_vhost: false } });
    expect(r.value('rabbitmq_queue_messages', { vhost: '/', queue: 'orders.1' })).toBe(1);
    expect(r.familyNames.filter((name) => name.includes('family') || name.includes('by_depth') || name.includes('rolled_up'))).toEqual([]);
  });

  it('serves counts but no counters or head with statistics disabled', async () => {
    const memory = new Map<string, unknown>();
    const api = fakeApi({ '/api/queues': [queue('orders.1', 4, { publish: 9, head: 1 })], '/api/consumers': [] });
    const r = await runCollector(queuesCollector, { api, memory, broker: BROKER_STATS_OFF, options: { per_vhost: false, families: RULES } });
    expect(r.value('rabbitmq_queue_family_messages', ORDERS)).toBe(4);
    expect(r.value('rabbitmq_queue_family_messages_published_total', ORDERS)).toBeUndefined();
    expect(r.value('rabbitmq_queue_family_oldest_head_message_timestamp_seconds', ORDERS)).toBeUndefined();
  });
});

describe('families configuration', () => {
  const { problem } = configLoader('families-');

  it('names the key of an invalid regular expression', () => {
    const message = problem([], {}, "collectors:\n  queues:\n    families:\n      rules:\n        - name: orders\n          match: '^orders\\.('\n");
    expect(message).toMatch(/collectors\.queues\.families\.rules(\.0|\[0\])\.match/);
    expect(message).toMatch(/not a valid regular expression/);
  });

  it('refuses a pattern that backtracks exponentially, naming its key (collectors.queues.queues.include and a family rule alike)', () => {
    const rule = problem([], {}, "collectors:\n  queues:\n    families:\n      rules:\n        - name: orders\n          match: '^(a+)+$'\n");
    expect(rule).toMatch(/collectors\.queues\.families\.rules(\.0|\[0\])\.match/);
    expect(rule).toMatch(/exponential time/);
    const include = problem([], {}, "collectors:\n  queues:\n    queues:\n      include: '^(a|aa)*$'\n");
    expect(include).toMatch(/collectors\.queues\.queues\.include/);
    expect(include).toMatch(/exponential time/);
  });

  it('names an unknown key and a rule without a name', () => {
    expect(problem([], {}, 'collectors:\n  queues:\n    families:\n      strip: true\n')).toMatch(/collectors\.queues\.families.*strip/);
    expect(problem([], {}, "collectors:\n  queues:\n    families:\n      rules:\n        - name: ''\n          match: x\n")).toMatch(/collectors\.queues\.families\.rules(\.0|\[0\])\.name.*a family needs a name/);
  });
});
