// The queue collector against recorded answers of RabbitMQ 3.10.8 (test/fixtures). Every
// literal below was read off the fixture JSON by hand (jq/python), not from the collector.
import { spawnSync } from 'node:child_process';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { brokerInfoFromOverview, type BrokerInfo } from '../../../src/broker/broker-info.js';
import { ManagementError } from '../../../src/broker/errors.js';
import { planQueueQuery, queueOptionsSchema, queuesCollector, parseTimestamp } from '../../../src/collectors/queues/collector.js';
import { fakeApi, type FakeRoute, NOT_FOUND } from '../../support/fake-broker-api.js';
import { loadFixture } from '../../support/fixtures.js';
import { BROKER_3_10_8, runCollector, type RunResult } from '../../support/run-collector.js';

type Q = Record<string, unknown>;
interface PageFixture {
  items: Q[];
  page_count: number;
}

const FULL = loadFixture<PageFixture>('rabbitmq-3.10.8/queues-page1.json').items; // 100 queues of vh0
const VH1 = loadFixture<PageFixture>('rabbitmq-3.10.8/queues-vh1-page1.json').items; // 100 queues of vh1
const TOTALS = loadFixture<PageFixture>('rabbitmq-3.10.8/queues-disable-stats-page1.json').items;
const CONSUMERS = loadFixture<Q[]>('rabbitmq-3.10.8/consumers-vh0.json'); // 10 consumers in vh0
const BACKLOG = loadFixture<Q>('rabbitmq-3.10.8/queue-single-backlog.json');
const SD = 'rabbitmq-3.10.8-stats-disabled';
const SD_OVERVIEW = loadFixture<Record<string, unknown>>(`${SD}/overview.json`);
const SD_PLAIN = loadFixture<PageFixture>(`${SD}/queues-page1.json`).items;
const SD_TOTALS = loadFixture<PageFixture>(`${SD}/queues-disable-stats-totals-page1.json`).items;
const SD_VHOSTS = loadFixture<{ name: string }[]>(`${SD}/vhosts.json`);
const QUORUM2 = loadFixture<Q>('rabbitmq-3.10.8-cluster/queue-quorum2.json');
const QUORUM2_DOWN = loadFixture<Q>('rabbitmq-3.10.8-cluster/queue-quorum2-rabbit2-down.json');
const ON_RABBIT2 = loadFixture<Q>('rabbitmq-3.10.8-cluster/queue-on-rabbit2.json');

const BROKER_STATS_OFF: BrokerInfo = brokerInfoFromOverview(SD_OVERVIEW);
const BROKER_3_13: BrokerInfo = { ...BROKER_3_10_8, managementVersion: '3.13.7', rabbitmqVersion: '3.13.7', productVersion: '3.13.7', variant: 'B' };

// ---------------------------------------------------------------------------------------------
// A fake broker list endpoint that behaves like 3.10.8's: `columns=` keeps only the listed
// (dotted) paths, `page`/`page_size` answer a page object, `name`+`use_regex` filter only paged
// requests, `disable_stats=true` without `enable_queue_totals` drops the counts.

function project(item: Q, columns: string): Q {
  const out: Q = {};
  for (const column of columns.split(',')) {
    const path = column.split('.');
    let src: unknown = item;
    let dst: Q = out;
    for (let i = 0; i < path.length; i++) {
      const key = path[i]!;
      if (src === null || typeof src !== 'object' || !Object.hasOwn(src, key)) break;
      const value = (src as Q)[key];
      if (i === path.length - 1) dst[key] = value;
      else {
        if (value === null || typeof value !== 'object') break;
        dst[key] = (dst[key] as Q | undefined) ?? {};
        dst = dst[key] as Q;
        src = value;
      }
    }
  }
  return out;
}

function listRoute(items: Q[]): (query: Record<string, string>) => unknown {
  return (query) => {
    let list = items;
    if (query.columns) list = list.map((item) => project(item, query.columns!));
    if (query.page === undefined) return list;
    if (query.name !== undefined) {
      const re = query.use_regex === 'true' ? new RegExp(query.name) : undefined;
      list = list.filter((q) => (re ? re.test(String(q.name)) : String(q.name).includes(query.name!)));
    }
    const page = Number(query.page);
    const size = Number(query.page_size ?? 100);
    const pageCount = Math.ceil(list.length / size);
    if (page > Math.max(pageCount, 1)) throw new ManagementError('http_status', '/api/queues', 'HTTP 400 (bad_request: page_out_of_range)', 400);
    const slice = list.slice((page - 1) * size, page * size);
    return { items: slice, page, page_count: pageCount, page_size: size, item_count: slice.length, filtered_count: list.length, total_count: items.length };
  };
}

function run(routes: Record<string, FakeRoute>, options: Record<string, unknown> = {}, extra: { broker?: BrokerInfo; memory?: Map<string, unknown> } = {}) {
  const api = fakeApi(routes);
  const result = runCollector(queuesCollector, { api, options, ...extra });
  return { api, result };
}

const series = (r: RunResult, name: string) => r.family(name).length;
const warnings = (r: RunResult) => r.logs.filter((l) => l.level === 40);

function promtool(text: string): { ok: boolean; output: string } | undefined {
  if (spawnSync('which', ['promtool']).status !== 0) return undefined;
  const p = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return { ok: p.status === 0, output: `${p.stdout}${p.stderr}` };
}

const q0 = { vhost: 'vh0', queue: 'q0' };
const q10 = { vhost: 'vh0', queue: 'q10' };

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
    // exclusive is null for quorum queues in this mode: an empty label, not "null".
    expect(r.family('rabbitmq_queue_info').find((s) => s.labels.queue === 'q0')?.labels).toMatchObject({ exclusive: '', node: 'rabbit@vm' });
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

// ---------------------------------------------------------------------------------------------

describe('queues: one request per vhost', () => {
  const ODD = { ...FULL[1]!, name: 'odd-vhost-queue', vhost: 'a b%' };
  const routes = (): Record<string, FakeRoute> => ({
    '/api/vhosts': [{ name: '/' }, { name: 'vh1' }, { name: 'a b%' }, { name: 'gone' }],
    '/api/queues/%2F': listRoute([BACKLOG]),
    '/api/queues/vh1': listRoute(VH1),
    '/api/queues/a%20b%25': listRoute([ODD]),
    '/api/queues/gone': NOT_FOUND, // deleted between the listing and the request
  });

  it('auto with several vhosts asks each (URL-encoded); a listed vhost that 404s has no series and is reported', async () => {
    const { api, result } = run(routes());
    const r = await result;
    // /api/whoami: the user's name for the log line (a 404 may be a vhost the user may not read, on 4.3).
    expect(api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues/%2F', '/api/queues/vh1', '/api/queues/a%20b%25', '/api/queues/gone', '/api/whoami']);
    expect(r.family('rabbitmq_exporter_collector_vhost_failed').map((s) => s.labels)).toEqual([{ collector: 'queues', vhost: 'gone', reason: 'http_404' }]);
    expect(r.value('rabbitmq_queue_messages', { vhost: '/', queue: 'fx.backlog' })).toBe(20);
    expect(r.value('rabbitmq_queue_messages', { vhost: 'a b%', queue: 'odd-vhost-queue' })).toBe(0);
    expect(r.value('rabbitmq_queue_messages', { vhost: 'vh1', queue: 'q11' })).toBe(4);
    expect(r.value('rabbitmq_queue_messages_published_total', { vhost: 'vh1', queue: 'q111' })).toBe(3175);
    expect(r.value('rabbitmq_vhost_queues', { vhost: 'vh1', type: 'classic' })).toBe(100);
    expect(r.value('rabbitmq_vhost_queue_consumers', { vhost: 'vh1', type: 'classic' })).toBe(2);
    expect(r.value('rabbitmq_vhost_queue_process_memory_bytes', { vhost: 'vh1', type: 'classic' })).toBe(1691424);
    expect(r.family('rabbitmq_vhost_queues').map((s) => s.labels.vhost).sort()).toEqual(['/', 'a b%', 'vh1']);
    expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'true', paged: 'false' })).toBe(1);
  });

  it('vhost include/exclude filters skip the requests', async () => {
    const excl = run(routes(), { vhosts: { exclude: '^(vh1|gone)$' } });
    const r = await excl.result;
    expect(excl.api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues/%2F', '/api/queues/a%20b%25']);
    expect(series(r, 'rabbitmq_vhost_queues')).toBe(2);

    const incl = run(routes(), { vhosts: { include: '^a ' } });
    await incl.result;
    expect(incl.api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues/a%20b%25']);
  });

  // Issue 17: with 20,000 vhosts the collector sent 20,000 requests, froze the event loop about
  // 66 s per poll and never succeeded. Above per_vhost_max it asks for the whole list once.
  it.each([20_000, 100_000])('with %d vhosts makes one request for all queues and filters them itself', async (count) => {
    const vhosts = Array.from({ length: count }, (_, i) => ({ name: `vh${i}` }));
    const queues = [{ ...BACKLOG, vhost: 'vh7' }, { ...BACKLOG, vhost: 'other' }];
    const { api, result } = run({ '/api/vhosts': vhosts, '/api/queues': listRoute(queues) }, { vhosts: { include: '^vh' } });
    const r = await result;
    expect(api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues']);
    expect(r.family('rabbitmq_queue_messages').map((s) => s.labels.vhost)).toEqual(['vh7']);
    expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'false', paged: 'false' })).toBe(1);
  });

  it('asks each vhost once however often the list names it, up to per_vhost_max', async () => {
    const vhosts = [{ name: 'vh1' }, { name: '/' }, { name: 'vh1' }, { name: '/' }];
    const { api, result } = run({ '/api/vhosts': vhosts, '/api/queues/%2F': listRoute([BACKLOG]), '/api/queues/vh1': listRoute(VH1) });
    await result;
    expect(api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues/vh1', '/api/queues/%2F']);
    const capped = run({ '/api/vhosts': vhosts, '/api/queues': listRoute([BACKLOG, ...VH1]) }, { per_vhost_max: 1 });
    await capped.result;
    expect(capped.api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues']);
  });

  it('auto with a single vhost makes one request for all queues', async () => {
    const { api, result } = run({ '/api/vhosts': [{ name: '/' }], '/api/queues': listRoute([BACKLOG]) });
    const r = await result;
    expect(api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues']);
    expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'false', paged: 'false' })).toBe(1);
  });

  it('per_vhost false filters vhosts after one request', async () => {
    const { api, result } = run({ '/api/queues': listRoute([...FULL, ...VH1]) }, { per_vhost: false, vhosts: { include: '^vh1$' } });
    const r = await result;
    expect(api.calls.map((c) => c.path)).toEqual(['/api/queues']);
    expect(series(r, 'rabbitmq_queue_messages')).toBe(100);
    expect(r.family('rabbitmq_vhost_queues').map((s) => s.labels.vhost)).toEqual(['vh1']);
  });
});

describe('queues: paging', () => {
  it('page_size 100 walks page_count pages and keeps a queue that moved onto the next page once', async () => {
    const all = [...FULL, ...VH1]; // 200 queues: 2 pages of 100
    const whole = listRoute(all);
    const route = (query: Record<string, string>) => {
      const answer = whole(query) as { items: Q[] };
      // Between the two requests a queue sorted before page 2 went away and came back: the last
      // queue of page 1 is also the first of page 2.
      if (query.page === '2') answer.items = [all[99]!, ...answer.items];
      return answer;
    };
    const { api, result } = run({ '/api/queues': route }, { per_vhost: false, page_size: 100 });
    const r = await result;
    expect(api.calls.map((c) => [c.query.page, c.query.page_size])).toEqual([['1', '100'], ['2', '100']]);
    expect(series(r, 'rabbitmq_queue_messages')).toBe(200); // a duplicate would have thrown in the parser
    expect(r.value('rabbitmq_vhost_queues', { vhost: 'vh0', type: 'classic' })).toBe(79);
    expect(r.value('rabbitmq_vhost_queues', { vhost: 'vh1', type: 'classic' })).toBe(100);
    expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'false', paged: 'true' })).toBe(1);
  });

  it('the list shrinking between pages (HTTP 400 past the end) keeps what was fetched', async () => {
    let served = [...FULL, ...VH1];
    const route = (query: Record<string, string>) => {
      const answer = listRoute(served)(query);
      served = served.slice(0, 100); // after page 1 half of the queues are deleted
      return answer;
    };
    const r = await run({ '/api/queues': route }, { per_vhost: false, page_size: 100 }).result;
    expect(series(r, 'rabbitmq_queue_messages')).toBe(100);
  });

  it('filter_on_broker sends name and use_regex, with paging', async () => {
    const { api, result } = run({ '/api/queues': listRoute(FULL) }, { per_vhost: false, filter_on_broker: true, queues: { include: '^q1\\d$' } });
    const r = await result;
    expect(api.calls).toHaveLength(1);
    expect(api.calls[0]!.query).toMatchObject({ name: '^q1\\d$', use_regex: 'true', page: '1', page_size: '500' });
    expect(r.family('rabbitmq_queue_messages').map((s) => s.labels.queue).sort()).toEqual(['q10', 'q11', 'q12', 'q13', 'q14', 'q15', 'q16', 'q17', 'q18', 'q19'].filter((n) => FULL.some((q) => q.name === n)));
    expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'false', paged: 'true' })).toBe(1);
  });
});

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

function without(record: Q, key: string): Q {
  const copy = { ...record };
  delete copy[key];
  return copy;
}

describe('queues: bad input', () => {
  const base = { ...FULL[1]!, message_stats: undefined };
  const ODD: Q[] = [
    { ...base, vhost: '/', name: 'say "hi"\\now\nplease', messages: 1 },
    { ...base, vhost: 'a b%', name: 'with spaces  ', messages: 2 },
    { ...base, vhost: 'вхост', name: 'очередь "x" \\ y', messages: 3 },
    without({ ...base, vhost: '/', messages: 99 }, 'name'),
    without({ ...base, name: 'no-vhost', messages: 99 }, 'vhost'),
    { ...base, vhost: '/', name: 42, messages: 99 }, // a name that is not a string
    null,
    { ...base, vhost: '/', name: 'weird-values', messages: null, messages_ready: '12', messages_unacknowledged: ' 7 ', consumers: 'many', memory: true, message_stats: { publish: '15', ack: null } },
  ] as Q[];

  it('escapes label values exactly and keeps non-ASCII as is', async () => {
    const r = await run({ '/api/queues': ODD }, { per_vhost: false }).result;
    const lines = r.text.split('\n').filter((l) => l.startsWith('rabbitmq_queue_messages{'));
    expect(lines).toEqual([
      'rabbitmq_queue_messages{vhost="/",queue="say \\"hi\\"\\\\now\\nplease"} 1',
      'rabbitmq_queue_messages{vhost="a b%",queue="with spaces  "} 2',
      'rabbitmq_queue_messages{vhost="вхост",queue="очередь \\"x\\" \\\\ y"} 3',
    ]);
    expect(r.value('rabbitmq_queue_messages', { vhost: '/', queue: 'say "hi"\\now\nplease' })).toBe(1);
    const check = promtool(r.text);
    if (check) expect(check, check.output).toEqual({ ok: true, output: '' });
  });

  it('skips records without a string name or vhost', async () => {
    const r = await run({ '/api/queues': ODD }, { per_vhost: false }).result;
    expect(series(r, 'rabbitmq_queue_info')).toBe(4);
    expect(r.family('rabbitmq_queue_messages').map((s) => s.value)).not.toContain(99);
    expect(r.text).not.toContain('no-vhost');
    expect(r.family('rabbitmq_vhost_queues').reduce((n, s) => n + s.value, 0)).toBe(4);
  });

  it('null is skipped (not 0), numeric strings are numbers, other strings are skipped', async () => {
    const r = await run({ '/api/queues': ODD }, { per_vhost: false }).result;
    const w = { vhost: '/', queue: 'weird-values' };
    expect(r.value('rabbitmq_queue_messages', w)).toBeUndefined();
    expect(r.value('rabbitmq_queue_messages_ready', w)).toBe(12);
    expect(r.value('rabbitmq_queue_messages_unacked', w)).toBe(7);
    expect(r.value('rabbitmq_queue_consumers', w)).toBeUndefined();
    expect(r.value('rabbitmq_queue_messages_published_total', w)).toBe(15);
    expect(r.value('rabbitmq_queue_messages_acked_total', w)).toBeUndefined();
    expect(r.skipped).toBeGreaterThanOrEqual(3);
    // '/' classic: three queues with messages 1, null, and the odd one: 1 in all.
    expect(r.value('rabbitmq_vhost_queue_messages', { vhost: '/', type: 'classic' })).toBe(1);
    expect(r.value('rabbitmq_vhost_queue_messages_ready', { vhost: '/', type: 'classic' })).toBe(12);
  });

  it('a page answer without items fails the poll with a clear error', async () => {
    const paged = run({ '/api/queues': { page: 1, page_count: 1, error: 'weird' } }, { per_vhost: false, page_size: 100 }).result;
    await expect(paged).rejects.toThrow(/\/api\/queues.*page 1.*(items|page)/);
    const whole = run({ '/api/queues': { error: 'weird' } }, { per_vhost: false }).result;
    await expect(whole).rejects.toThrow(/\/api\/queues did not answer a JSON list/);
    const nul = run({ '/api/queues': null }, { per_vhost: false }).result;
    await expect(nul).rejects.toThrow(/\/api\/queues did not answer a JSON list/);
    const vhosts = run({ '/api/vhosts': { not: 'a list' } }).result;
    await expect(vhosts).rejects.toThrow(/\/api\/vhosts did not answer a JSON list/);
  });

  it('a failing request fails the poll (the error is the ManagementError)', async () => {
    const r = run({ '/api/queues': () => { throw new ManagementError('http_status', '/api/queues', 'HTTP 500', 500); } }, { per_vhost: false }).result;
    await expect(r).rejects.toBeInstanceOf(ManagementError);
  });
});

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
});
