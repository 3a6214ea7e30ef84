// The queue collector against recorded answers of RabbitMQ 3.10.8 (test/fixtures). Every
// literal below was read off the fixture JSON by hand (jq/python), not from the collector.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { BrokerInfo } from '../../../../src/broker/broker-info.js';
import { planQueueQuery, queueOptionsSchema, queuesCollector } from '../../../../src/collectors/queues/collector.js';
import { fakeApi } from '../../../support/fake-broker-api.js';
import { BROKER_3_10_8, runCollector } from '../../../support/run-collector.js';
import { FULL, BROKER_STATS_OFF, BROKER_3_13, listRoute, run, warnings, q0 } from './queue-fixtures.js';

// ---------------------------------------------------------------------------------------------

function plan(options: Record<string, unknown>, broker: BrokerInfo = BROKER_3_10_8, memory = new Map<string, unknown>()) {
  const logs: string[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  return { plan: planQueueQuery({ broker, options: queueOptionsSchema.parse(options), log, carryOver: memory }), logs, memory };
}

const COUNTS = ['messages', 'messages_ready', 'messages_unacknowledged'];
const DETAILS = [
  'message_bytes', 'message_bytes_ready', 'message_bytes_unacknowledged', 'messages_ram', 'messages_ready_ram', 'messages_unacknowledged_ram',
  'message_bytes_ram', 'messages_persistent', 'message_bytes_persistent', 'messages_paged_out', 'message_bytes_paged_out', 'messages_dlx',
  'message_bytes_dlx', 'consumers', 'consumer_utilisation', 'consumer_capacity', 'memory', 'head_message_timestamp', 'reductions',
  'messages_delayed', 'messages_ready_returned', 'publishers', 'delivery_limit', 'segments',
  'idle_since', 'members', 'online',
];
const MESSAGE_STATS = ['publish', 'deliver', 'deliver_no_ack', 'get', 'get_no_ack', 'get_empty', 'deliver_get', 'redeliver', 'ack', 'confirm', 'return_unroutable', 'drop_unroutable'].map((f) => `message_stats.${f}`);
const IDENTITY = ['name', 'vhost', 'type', 'state'];
const INFO = ['durable', 'auto_delete', 'exclusive', 'policy', 'operator_policy', 'node', 'leader', 'arguments'];

const columnsOf = (p: { query: Record<string, string | boolean> }) => new Set(String(p.query.columns).split(','));

describe('queues: the query planner', () => {
  it('auto on a 3.10 broker with statistics: columns, exactly the fields the enabled tables need', () => {
    const { plan: p } = plan({});
    expect(p.mode).toBe('columns');
    expect(p.path).toBe('/api/queues');
    expect(p.query.disable_stats).toBeUndefined();
    expect(columnsOf(p)).toEqual(new Set([...IDENTITY, ...INFO, ...COUNTS, ...DETAILS, ...MESSAGE_STATS]));
    expect([...columnsOf(p)].filter((c) => c.endsWith('_details'))).toEqual([]);
  });

  it('asks for _details only for the rates that are on', () => {
    const all = columnsOf(plan({ rates: true }).plan);
    const rateColumns = [...all].filter((c) => c.endsWith('_details')).sort();
    expect(rateColumns).toEqual(
      ['messages_details', 'messages_ready_details', 'messages_unacknowledged_details', 'reductions_details', ...MESSAGE_STATS.map((f) => `${f}_details`)].sort(),
    );
    const one = columnsOf(plan({ rates: ['message_stats.publish'] }).plan);
    expect([...one].filter((c) => c.endsWith('_details'))).toEqual(['message_stats.publish_details']);
  });

  it('leaves out the tables that are off, and the info-only fields when info is off', () => {
    const p = plan({ details: false, info: false, rates: false }).plan;
    expect(p.mode).toBe('columns');
    expect(columnsOf(p)).toEqual(new Set([...IDENTITY, ...COUNTS, ...MESSAGE_STATS]));
    const skip = plan({ details: false, message_stats: false, info: false, mode: 'columns', skip_exclusive: true, skip_auto_delete: true }).plan;
    expect(columnsOf(skip)).toEqual(new Set([...IDENTITY, 'exclusive', 'auto_delete', ...COUNTS]));
    // Settings that add other columns do not take away the ones the skip settings read.
    for (const extra of [{ limits: true }, { quorum_placement: true }, { signals: true }]) {
      const columns = columnsOf(plan({ details: false, message_stats: false, info: false, mode: 'columns', skip_exclusive: true, skip_auto_delete: true, ...extra }).plan);
      expect(columns.has('exclusive') && columns.has('auto_delete'), JSON.stringify(extra)).toBe(true);
    }
  });

  it('a plan is made once and not changed afterwards: whether it asks per vhost is the fetch\'s answer', () => {
    const { plan: p } = plan({});
    expect(Object.isFrozen(p)).toBe(true);
    expect(p.mayAskPerVhost).toBe(true);
    expect(plan({ per_vhost: false }).plan.mayAskPerVhost).toBe(false);
    expect(plan({ mode: 'full', per_vhost: true }).plan.mayAskPerVhost).toBe(true);
  });

  it('auto picks totals when details, message_stats and rates are all off', () => {
    const { plan: p } = plan({ details: false, message_stats: false, rates: false });
    expect(p.mode).toBe('totals');
    expect(p.query).toMatchObject({ disable_stats: true, enable_queue_totals: true });
    expect(p.degraded).toBe(false);
    expect(plan({ details: false, message_stats: false, rates: ['messages'] }).plan.mode).toBe('columns');
    expect(plan({ details: false, message_stats: false, rates: [] }).plan.mode).toBe('totals'); // an empty list is off
  });

  it('auto picks totals on a broker with statistics disabled, and is degraded', () => {
    const { plan: p } = plan({}, BROKER_STATS_OFF);
    expect(p.mode).toBe('totals');
    expect(p.degraded).toBe(true);
    expect(plan({ details: false, message_stats: false }, BROKER_STATS_OFF).plan.degraded).toBe(false);
  });

  it('full asks for everything; detailed on 3.10 (variant A) falls back to columns with one warning', async () => {
    expect(plan({ mode: 'full' }).plan.query).toEqual({});
    const memory = new Map<string, unknown>();
    const api = fakeApi({ '/api/queues': listRoute(FULL) });
    const first = await runCollector(queuesCollector, { api, options: { mode: 'detailed', per_vhost: false, stats_every: 1 }, memory });
    const second = await runCollector(queuesCollector, { api, options: { mode: 'detailed', per_vhost: false, stats_every: 1 }, memory });
    expect(api.calls.map((c) => c.path)).toEqual(['/api/queues', '/api/queues']);
    expect(api.calls[0]!.query.columns).toBeDefined();
    expect(first.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'false', paged: 'false' })).toBe(1);
    expect(warnings(first).map((l) => l.msg)).toEqual(['/api/queues/detailed exists from 3.13 on: using mode columns']);
    expect(warnings(second)).toEqual([]);
  });

  it('detailed on 3.13+ (variant B) requests /api/queues/detailed', async () => {
    const { api, result } = run({ '/api/queues/detailed': listRoute(FULL) }, { mode: 'detailed' }, { broker: BROKER_3_13 });
    const r = await result;
    expect(api.calls).toEqual([{ path: '/api/queues/detailed', query: {}, optional: false }]);
    expect(r.value('rabbitmq_queue_messages', q0)).toBe(4);
    expect(r.value('rabbitmq_queue_query_info', { mode: 'detailed', per_vhost: 'false', paged: 'false' })).toBe(1);
  });
});
