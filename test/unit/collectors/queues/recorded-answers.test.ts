// The queue collector against recorded answers of RabbitMQ 3.10.8 (test/fixtures). Every
// literal below was read off the fixture JSON by hand (jq/python), not from the collector.
import { describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../../../src/collectors/queues/collector.js';
import type { FakeRoute } from '../../../support/fake-broker-api.js';
import type { RunResult } from '../../../support/run-collector.js';
import { type Q, FULL, TOTALS, CONSUMERS, BACKLOG, SD_PLAIN, SD_TOTALS, SD_VHOSTS, QUORUM2, QUORUM2_DOWN, ON_RABBIT2, BROKER_STATS_OFF, listRoute, run, series, warnings, promtool, q0, q10 } from './queue-fixtures.js';

// ---------------------------------------------------------------------------------------------

describe('queues: full statistics (queues-page1.json)', () => {
  it('serves the counts, details and message_stats of each queue', async () => {
    const { api, result } = run({ '/api/queues': listRoute(FULL) }, { per_vhost: false });
    const r = await result;
    expect(api.calls).toHaveLength(1);
    expect(api.calls[0]!.path).toBe('/api/queues');
    expect(api.calls[0]!.query.columns).toBeDefined();

    // q0: a quorum queue with one consumer and 4 unacknowledged messages.
    expect(r.value('rabbitmq_queue_messages', q0)).toBe(4);
    expect(r.value('rabbitmq_queue_messages_ready', q0)).toBe(0);
    expect(r.value('rabbitmq_queue_messages_unacked', q0)).toBe(4);
    expect(r.value('rabbitmq_queue_messages_bytes', q0)).toBe(28);
    expect(r.value('rabbitmq_queue_messages_unacked_bytes', q0)).toBe(28);
    expect(r.value('rabbitmq_queue_messages_persistent', q0)).toBe(4);
    expect(r.value('rabbitmq_queue_messages_persistent_bytes', q0)).toBe(28);
    expect(r.value('rabbitmq_queue_messages_dead_lettered_pending', q0)).toBe(0);
    expect(r.value('rabbitmq_queue_consumers', q0)).toBe(1);
    expect(r.value('rabbitmq_queue_consumer_utilisation', q0)).toBe(1);
    expect(r.value('rabbitmq_queue_consumer_capacity', q0)).toBe(1);
    expect(r.value('rabbitmq_queue_process_memory_bytes', q0)).toBe(55484);
    expect(r.value('rabbitmq_queue_reductions_total', q0)).toBe(2095025);
    expect(r.value('rabbitmq_queue_messages_published_total', q0)).toBe(3175);
    expect(r.value('rabbitmq_queue_messages_delivered_ack_total', q0)).toBe(3175);
    expect(r.value('rabbitmq_queue_messages_delivered_total', q0)).toBe(0);
    expect(r.value('rabbitmq_queue_messages_acked_total', q0)).toBe(3175);
    expect(r.value('rabbitmq_queue_messages_delivered_or_got_total', q0)).toBe(3175);
    expect(r.value('rabbitmq_queue_messages_redelivered_total', q0)).toBe(0);
    expect(r.value('rabbitmq_queue_members', q0)).toBe(1);
    expect(r.value('rabbitmq_queue_members_online', q0)).toBe(1);
    expect(r.value('rabbitmq_queue_running', q0)).toBe(1);
    // classic quorum-only and idle fields
    expect(r.value('rabbitmq_queue_idle_since_timestamp_seconds', q0)).toBeUndefined(); // idle_since null

    // q10: an idle classic queue without message_stats (null in the record).
    expect(r.value('rabbitmq_queue_messages', q10)).toBe(0);
    expect(r.value('rabbitmq_queue_process_memory_bytes', q10)).toBe(14672);
    expect(r.value('rabbitmq_queue_reductions_total', q10)).toBe(9699);
    expect(r.value('rabbitmq_queue_idle_since_timestamp_seconds', q10)).toBe(1795315165.509); // 2026-11-22T02:39:25.509+00:00
    expect(r.value('rabbitmq_queue_messages_published_total', q10)).toBeUndefined();
    expect(r.value('rabbitmq_queue_head_message_timestamp_seconds', q10)).toBeUndefined(); // null, not 0
    expect(r.value('rabbitmq_queue_members', q10)).toBeUndefined();

    // One series per queue; no rate gauges unless asked for.
    expect(series(r, 'rabbitmq_queue_messages')).toBe(100);
    expect(series(r, 'rabbitmq_queue_info')).toBe(100);
    expect(r.text).not.toMatch(/_per_second/);
    expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'false', paged: 'false' })).toBe(1);
    expect(r.value('rabbitmq_queue_statistics_degraded')).toBe(0);
  });

  it('serves rabbitmq_queue_info with the leader as node, and the arguments', async () => {
    const r = await run({ '/api/queues': listRoute(FULL) }, { per_vhost: false }).result;
    const info = r.family('rabbitmq_queue_info').find((s) => s.labels.queue === 'q0');
    expect(info).toEqual({
      name: 'rabbitmq_queue_info',
      value: 1,
      labels: {
        vhost: 'vh0', queue: 'q0', type: 'quorum', durable: 'true', auto_delete: 'false', exclusive: 'false',
        policy: '', operator_policy: '', node: 'rabbit@vm', state: 'running',
        x_max_length: '', x_max_length_bytes: '', x_overflow: '', x_message_ttl: '', x_expires: '', x_dead_letter_exchange: '',
        x_queue_mode: '', x_single_active_consumer: '', x_delivery_limit: '', x_queue_leader_locator: '',
      },
    });
  });

  it('aggregates per vhost and type: 79 classic and 21 quorum queues in vh0', async () => {
    const r = await run({ '/api/queues': listRoute(FULL) }, { per_vhost: false }).result;
    const classic = { vhost: 'vh0', type: 'classic' };
    const quorum = { vhost: 'vh0', type: 'quorum' };
    expect(r.value('rabbitmq_vhost_queues', classic)).toBe(79);
    expect(r.value('rabbitmq_vhost_queues', quorum)).toBe(21);
    expect(r.value('rabbitmq_vhost_queue_messages', quorum)).toBe(4);
    expect(r.value('rabbitmq_vhost_queue_messages_ready', quorum)).toBe(0);
    expect(r.value('rabbitmq_vhost_queue_messages_unacked', quorum)).toBe(4);
    expect(r.value('rabbitmq_vhost_queue_messages_bytes', quorum)).toBe(28);
    expect(r.value('rabbitmq_vhost_queue_consumers', quorum)).toBe(2);
    expect(r.value('rabbitmq_vhost_queue_process_memory_bytes', quorum)).toBe(590100);
    expect(r.value('rabbitmq_vhost_queue_messages', classic)).toBe(0);
    expect(r.value('rabbitmq_vhost_queue_process_memory_bytes', classic)).toBe(1158864);
    expect(r.value('rabbitmq_vhost_queues_not_running', classic)).toBe(0);
    expect(r.value('rabbitmq_vhost_queues_ready_without_consumers', quorum)).toBe(0);
  });

  it('serves the _details.rate gauges when rates are on (all, or the listed fields)', async () => {
    const all = await run({ '/api/queues': listRoute(FULL) }, { per_vhost: false, rates: true }).result;
    expect(all.value('rabbitmq_queue_messages_change_per_second', q0)).toBe(0.8);
    expect(all.value('rabbitmq_queue_messages_unacked_change_per_second', q0)).toBe(0.8);
    expect(all.value('rabbitmq_queue_messages_published_per_second', q0)).toBe(50);
    expect(all.value('rabbitmq_queue_messages_acked_per_second', q0)).toBe(50);
    expect(all.value('rabbitmq_queue_reductions_per_second', q0)).toBe(33110);

    const some = await run({ '/api/queues': listRoute(FULL) }, { per_vhost: false, rates: ['message_stats.publish'] }).result;
    expect(some.value('rabbitmq_queue_messages_published_per_second', q0)).toBe(50);
    expect(some.value('rabbitmq_queue_messages_change_per_second', q0)).toBeUndefined();
    expect(some.value('rabbitmq_queue_messages_acked_per_second', q0)).toBeUndefined();
  });

  it('renders an exposition that promtool accepts', async (ctx) => {
    const r = await run({ '/api/queues': listRoute([...FULL, BACKLOG]) }, { per_vhost: false, rates: true }).result;
    const check = promtool(r.text);
    if (!check) return ctx.skip();
    expect(check.output).toBe('');
    expect(check.ok).toBe(true);
  });
});

describe('queues: totals mode (disable_stats=true&enable_queue_totals=true)', () => {
  it('asks for counts only and serves them (queues-disable-stats-page1.json)', async () => {
    const { api, result } = run({ '/api/queues': listRoute(TOTALS), '/api/consumers': CONSUMERS }, { per_vhost: false, mode: 'totals' });
    const r = await result;
    expect(api.calls.map((c) => c.path)).toEqual(['/api/consumers', '/api/queues']);
    expect(api.calls[0]!.query).toEqual({ columns: 'queue' });
    expect(api.calls[1]!.query).toMatchObject({ disable_stats: 'true', enable_queue_totals: 'true' });
    expect(r.value('rabbitmq_queue_messages', q0)).toBe(4);
    expect(r.value('rabbitmq_queue_messages_ready', q0)).toBe(0);
    expect(r.value('rabbitmq_queue_messages_unacked', q0)).toBe(4);
    expect(r.value('rabbitmq_queue_members', q0)).toBe(1);
    expect(r.value('rabbitmq_queue_members_online', q0)).toBe(1);
    expect(r.value('rabbitmq_queue_running', q0)).toBe(1);
    // exclusive is null for quorum queues in this mode: "false", as the statistics list says (never "null").
    expect(r.family('rabbitmq_queue_info').find((s) => s.labels.queue === 'q0')?.labels).toMatchObject({ exclusive: 'false', node: 'rabbit@vm' });
    for (const absent of ['rabbitmq_queue_process_memory_bytes', 'rabbitmq_queue_messages_bytes', 'rabbitmq_queue_messages_published_total', 'rabbitmq_vhost_queue_messages_bytes', 'rabbitmq_queue_statistics_age_seconds']) {
      expect(series(r, absent), absent).toBe(0);
    }
    // The records carry no consumers in this mode: counted from /api/consumers (q0 and q100 have
    // one each there, as the recorded full list says), every other queue of the list has none.
    expect(TOTALS.some((q) => 'consumers' in q)).toBe(false);
    expect(r.value('rabbitmq_queue_consumers', q0)).toBe(1);
    expect(r.value('rabbitmq_queue_consumers', { vhost: 'vh0', queue: 'q100' })).toBe(1);
    expect(r.value('rabbitmq_queue_consumers', q10)).toBe(0);
    expect(series(r, 'rabbitmq_queue_consumers')).toBe(100);
    for (const queue of FULL) expect(r.value('rabbitmq_queue_consumers', { vhost: 'vh0', queue: queue.name as string }), queue.name as string).toBe(queue.consumers);
    expect(r.value('rabbitmq_vhost_queue_consumers', { vhost: 'vh0', type: 'classic' })).toBe(0);
    expect(r.value('rabbitmq_vhost_queue_consumers', { vhost: 'vh0', type: 'quorum' })).toBe(2);
    expect(r.value('rabbitmq_vhost_queues', { vhost: 'vh0', type: 'quorum' })).toBe(21);
    expect(r.value('rabbitmq_vhost_queue_messages_unacked', { vhost: 'vh0', type: 'quorum' })).toBe(4);
    expect(r.value('rabbitmq_queue_query_info', { mode: 'totals', per_vhost: 'false', paged: 'false' })).toBe(1);
    expect(r.value('rabbitmq_queue_statistics_degraded')).toBe(0);
  });
});

describe('queues: a broker with statistics disabled (rabbitmq-3.10.8-stats-disabled)', () => {
  const vhostRoutes = (items: Q[]) => {
    const routes: Record<string, FakeRoute> = { '/api/vhosts': SD_VHOSTS.map((v) => ({ name: v.name })) };
    for (const v of SD_VHOSTS) routes[`/api/queues/${encodeURIComponent(v.name)}`] = listRoute(items.filter((q) => q.vhost === v.name));
    return routes;
  };

  it('auto picks totals, per vhost, and says it is degraded', async () => {
    expect(BROKER_STATS_OFF.statisticsDisabled).toBe(true);
    const { api, result } = run(vhostRoutes(SD_TOTALS), {}, { broker: BROKER_STATS_OFF });
    const r = await result;
    expect(api.calls[0]).toEqual({ path: '/api/vhosts', query: { columns: 'name' }, optional: false });
    expect(api.calls.slice(1).map((c) => c.path)).toEqual(SD_VHOSTS.map((v) => `/api/queues/${encodeURIComponent(v.name)}`));
    for (const call of api.calls.slice(1)) expect(call.query).toMatchObject({ disable_stats: 'true', enable_queue_totals: 'true' });
    expect(r.value('rabbitmq_queue_statistics_degraded')).toBe(1);
    expect(r.value('rabbitmq_queue_query_info', { mode: 'totals', per_vhost: 'true', paged: 'false' })).toBe(1);
    expect(r.value('rabbitmq_queue_messages', q0)).toBe(4);
    expect(r.value('rabbitmq_queue_messages_ready', q0)).toBe(4);
    expect(r.value('rabbitmq_queue_messages', { vhost: 'vh0', queue: 'q100' })).toBe(4);
    expect(r.value('rabbitmq_queue_messages', { vhost: '/', queue: 'fx.backlog' })).toBe(0);
    expect(r.value('rabbitmq_vhost_queues', { vhost: 'vh0', type: 'quorum' })).toBe(21);
    expect(r.value('rabbitmq_vhost_queues', { vhost: 'vh0', type: 'classic' })).toBe(78);
    expect(r.value('rabbitmq_vhost_queues', { vhost: '/', type: 'classic' })).toBe(1);
    expect(r.value('rabbitmq_vhost_queue_messages_ready', { vhost: 'vh0', type: 'quorum' })).toBe(8);
    // No zeros for what a stats-disabled broker does not report.
    for (const absent of ['rabbitmq_queue_consumers', 'rabbitmq_queue_process_memory_bytes', 'rabbitmq_queue_messages_bytes', 'rabbitmq_queue_messages_published_total', 'rabbitmq_queue_idle_since_timestamp_seconds', 'rabbitmq_vhost_queue_consumers', 'rabbitmq_vhost_queue_process_memory_bytes', 'rabbitmq_vhost_queue_messages_bytes', 'rabbitmq_vhost_queues_ready_without_consumers']) {
      expect(series(r, absent), absent).toBe(0);
    }
    expect(warnings(r).map((l) => l.msg)).toEqual(['the broker has statistics disabled: queue series are limited to message counts']);
  });

  it('a forced mode without totals serves no message counts at all, rather than zeros', async () => {
    const r = await run({ '/api/queues': listRoute(SD_PLAIN) }, { per_vhost: false, mode: 'full' }, { broker: BROKER_STATS_OFF }).result;
    expect(series(r, 'rabbitmq_queue_messages')).toBe(0);
    expect(series(r, 'rabbitmq_queue_messages_ready')).toBe(0);
    expect(series(r, 'rabbitmq_vhost_queue_messages')).toBe(0);
    expect(series(r, 'rabbitmq_vhost_queue_messages_ready')).toBe(0);
    expect(series(r, 'rabbitmq_vhost_queue_messages_unacked')).toBe(0);
    expect(r.value('rabbitmq_vhost_queues', { vhost: 'vh0', type: 'quorum' })).toBe(21);
    // state is "live" when statistics are off: still running.
    expect(r.value('rabbitmq_queue_running', q0)).toBe(1);
    expect(r.value('rabbitmq_queue_info', { ...infoOf(r, 'q0'), state: 'live' })).toBe(1);
    expect(r.value('rabbitmq_queue_statistics_degraded')).toBe(1);
  });
});

describe('queues: aggregates of fields only some queues report', () => {
  it('a vhost whose queues report no counts gets no count sums, not 0', async () => {
    const r = await run({ '/api/queues': [
      { name: 'a', vhost: 'v1', type: 'classic', state: 'running', messages: 3, messages_ready: 3, consumers: 0 },
      { name: 'b', vhost: 'v2', type: 'classic', state: 'live' },
      { name: 'c', vhost: 'v2', type: 'classic', state: 'down', messages: null },
    ] }, { per_vhost: false }).result;
    const v1 = { vhost: 'v1', type: 'classic' };
    const v2 = { vhost: 'v2', type: 'classic' };
    expect(r.value('rabbitmq_vhost_queue_messages', v1)).toBe(3);
    expect(r.value('rabbitmq_vhost_queues_ready_without_consumers', v1)).toBe(1);
    expect(r.value('rabbitmq_vhost_queue_messages_unacked', v1)).toBeUndefined();
    expect(r.value('rabbitmq_vhost_queues', v2)).toBe(2);
    expect(r.value('rabbitmq_vhost_queues_not_running', v2)).toBe(1);
    for (const name of ['rabbitmq_vhost_queue_messages', 'rabbitmq_vhost_queue_messages_ready', 'rabbitmq_vhost_queue_consumers', 'rabbitmq_vhost_queues_ready_without_consumers']) {
      expect(r.value(name, v2), name).toBeUndefined();
    }
  });
});

function infoOf(r: RunResult, queue: string): Record<string, string> {
  const hit = r.family('rabbitmq_queue_info').find((s) => s.labels.queue === queue);
  if (!hit) throw new Error(`no rabbitmq_queue_info for ${queue}`);
  return hit.labels;
}

describe('queues: single recorded queues', () => {
  it('queue-single-backlog.json: head timestamp, idle since, policy and x-max-length', async () => {
    const r = await run({ '/api/queues': [BACKLOG] }, { per_vhost: false }).result;
    const fx = { vhost: '/', queue: 'fx.backlog' };
    expect(r.value('rabbitmq_queue_head_message_timestamp_seconds', fx)).toBe(1795312212);
    expect(r.value('rabbitmq_queue_idle_since_timestamp_seconds', fx)).toBe(1795315813.694); // 2026-11-22T02:50:13.694+00:00
    expect(r.value('rabbitmq_queue_messages', fx)).toBe(20);
    expect(r.value('rabbitmq_queue_messages_ready_bytes', fx)).toBe(51);
    expect(r.value('rabbitmq_queue_messages_ram', fx)).toBe(20);
    expect(r.value('rabbitmq_queue_messages_published_total', fx)).toBe(20);
    expect(r.value('rabbitmq_queue_messages_acked_total', fx)).toBeUndefined(); // not in message_stats
    expect(infoOf(r, 'fx.backlog')).toMatchObject({ policy: 'fx-policy', x_max_length: '5000', node: 'rabbit@vm', type: 'classic', state: 'running' });
    expect(r.value('rabbitmq_vhost_queues_ready_without_consumers', { vhost: '/', type: 'classic' })).toBe(1);
  });

  it('cluster: a quorum queue with one member down, a classic queue on the other node', async () => {
    const up = await run({ '/api/queues': [QUORUM2, ON_RABBIT2] }, { per_vhost: false }).result;
    const qq = { vhost: '/', queue: 'fx.quorum2' };
    expect(up.value('rabbitmq_queue_members', qq)).toBe(2);
    expect(up.value('rabbitmq_queue_members_online', qq)).toBe(2);
    expect(infoOf(up, 'fx.on-rabbit2').node).toBe('rabbit2@vm');

    const down = await run({ '/api/queues': [QUORUM2_DOWN] }, { per_vhost: false }).result;
    expect(down.value('rabbitmq_queue_members', qq)).toBe(2);
    expect(down.value('rabbitmq_queue_members_online', qq)).toBe(1);
    expect(down.value('rabbitmq_queue_running', qq)).toBe(1);
    expect(infoOf(down, 'fx.quorum2')).toMatchObject({ node: 'rabbit@vm', type: 'quorum', policy: 'fx-policy' });
  });

  it('parses both idle_since formats to Unix seconds', () => {
    expect(parseTimestamp('2026-11-22T02:50:13.694+00:00')).toBe(1795315813.694);
    expect(parseTimestamp('2019-03-13 11:17:44')).toBe(1552475864);
    expect(parseTimestamp(null)).toBeUndefined();
    expect(parseTimestamp('')).toBeUndefined();
    expect(parseTimestamp('soon')).toBeUndefined();
  });
});
