import { z } from 'zod';
import { QUEUE_INFO_ARGUMENTS, queueMetrics as M } from '../catalogue/queues.js';
import { isNotFound } from '../client/errors.js';
import { apiPath } from '../client/management-client.js';
import { renderLabels } from '../render/exposition.js';
import { metricsOf, type MetricDef } from '../metrics/metric-def.js';
import { toSampleValue, type DropCounter, type SampleWriter } from '../render/sample-sink.js';
import type { BrokerApi, Collector, CollectContext } from './collector.js';
import { emitRecord, fieldTable, type FieldTable } from './field-table.js';
import { logOnce } from './log-once.js';
import { fetchWholeOrPaged } from './paging.js';
import { MonotonicCounters } from './monotonic-counters.js';
import { fetchConsumerCounts } from './queue-consumer-counts.js';
import { QueueStatsTier, type StatsSums } from './queue-stats-tier.js';
import { NameFilter, nameFilterSchema } from './name-filter.js';

const countsTable = fieldTable([
  M.messages,
  M.messagesReady,
  M.messagesUnacked,
]);

const detailsTable = fieldTable([
  M.messagesBytes,
  M.messagesReadyBytes,
  M.messagesUnackedBytes,
  M.messagesRam,
  M.messagesReadyRam,
  M.messagesUnackedRam,
  M.messagesRamBytes,
  M.messagesPersistent,
  M.messagesPersistentBytes,
  M.messagesPagedOut,
  M.messagesPagedOutBytes,
  M.messagesDlx,
  M.messagesDlxBytes,
]);

/** Served every poll: from the record on statistics polls, else from /api/consumers. */
const consumersTable = fieldTable([M.consumers]);

/** The rest of the details, after consumers (the order families are served in). */
const moreDetailsTable = fieldTable([
  M.consumerUtilisation,
  M.consumerCapacity,
  M.memory,
  M.headMessageTimestamp,
  M.reductions,
]);

const messageStatsTable = fieldTable([
  M.published,
  M.deliveredAck,
  M.deliveredNoAck,
  M.getAck,
  M.getNoAck,
  M.getEmpty,
  M.deliverGet,
  M.redelivered,
  M.acked,
  M.confirmed,
  M.returnedUnroutable,
  M.droppedUnroutable,
]);

/** What only the statistics list carries: served again, unchanged, by the counts-only polls between. */
const STATS_DEFS: ReadonlySet<MetricDef> = new Set([
  ...detailsTable.metrics,
  ...moreDetailsTable.metrics,
  ...messageStatsTable.metrics,
  M.idleSince,
  ...countsTable.rows.flatMap((row) => (row.metric.rate ? [row.metric.rate] : [])),
]);

/** Fields read outside the tables: always (identity, aggregates, running) and for rabbitmq_queue_info. */
const IDENTITY_COLUMNS = ['name', 'vhost', 'type', 'state'];
const INFO_COLUMNS = ['durable', 'auto_delete', 'exclusive', 'policy', 'operator_policy', 'node', 'leader', 'arguments'];
const DETAIL_COLUMNS = ['idle_since', 'members', 'online'];

/** Longest run of the queue loop between two turns of the event loop. */
const TURN_MS = 10;

const RUNNING_STATES = new Set(['running', 'live', 'idle', 'flow']);

export const queueOptionsSchema = z.strictObject({
  /**
   * How to ask: auto (the cheapest that yields the enabled metrics: totals when the broker has
   * statistics off or only counts are wanted, else columns), columns (only the fields needed),
   * totals (disable_stats=true&enable_queue_totals=true: counts and metadata only), full
   * (everything), detailed (/api/queues/detailed, 3.13+).
   */
  mode: z.enum(['auto', 'columns', 'totals', 'full', 'detailed']).default('auto'),
  /**
   * Per-queue statistics (details, message_stats, rates) every this many polls, from the list
   * with statistics (several times the broker's cost of the counts-only list); the polls between
   * ask for counts only, take consumers from /api/consumers, and serve the statistics of the
   * last poll that fetched them (their age: rabbitmq_queue_statistics_age_seconds). 1: every
   * poll; 0: never (counts, consumers and metadata only).
   */
  stats_every: z.number().int().min(0).default(4),
  /** Bytes, RAM/persistent splits, consumers, utilisation, memory, head timestamp, idle since, members. */
  details: z.boolean().default(true),
  /** message_stats counters (publish, deliver, ack, ...). */
  message_stats: z.boolean().default(true),
  /** `_details.rate` gauges: false, true, or a list of fields such as ["messages", "message_stats.publish"]. */
  rates: z.union([z.boolean(), z.array(z.string())]).default(false),
  /** One request per vhost (auto: when there is more than one vhost to watch). */
  per_vhost: z.union([z.boolean(), z.literal('auto')]).default('auto'),
  /** With more vhosts than this to watch, one request for the whole list instead of one per vhost. */
  per_vhost_max: z.number().int().min(1).default(100),
  /** 0: whole lists. Else page size (at most 500): each page costs the broker about one whole list. */
  page_size: z.number().int().min(0).max(500).default(0),
  vhosts: nameFilterSchema,
  queues: nameFilterSchema,
  /** Send queues.include to the broker (name + use_regex; forces paging). Aggregates then cover only matching queues. */
  filter_on_broker: z.boolean().default(false),
  skip_exclusive: z.boolean().default(false),
  skip_auto_delete: z.boolean().default(false),
  /** Most queues with per-queue series on this target; 0 is no cap. Aggregates always cover all. */
  max_queues: z.number().int().min(0).default(0),
  /** Serve rabbitmq_queue_info. */
  info: z.boolean().default(true),
});

export type QueueOptions = z.infer<typeof queueOptionsSchema>;
type QueueRecord = Record<string, unknown>;
type Mode = 'columns' | 'totals' | 'full' | 'detailed';

export interface QueuePlan {
  mode: Mode;
  path: string;
  query: Record<string, string | boolean>;
  perVhost: boolean;
  pageSize: number;
  degraded: boolean;
  /** Count consumers per queue from /api/consumers (the counts-only list has none). */
  consumerCounts: boolean;
  tables: FieldTable[];
}

export const queuesCollector: Collector<QueueOptions> = {
  name: 'queues',
  description:
    'GET /api/queues, or /api/queues/{vhost} per vhost (with /api/vhosts?columns=name to list them): with statistics (only the needed columns; /api/queues/detailed on 3.13+ when configured) every stats_every polls, and counts only (disable_stats=true&enable_queue_totals=true) with GET /api/consumers?columns=queue for the consumer counts on the polls between, or always when only counts are available or wanted.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 2,
  optionsSchema: queueOptionsSchema,
  metrics: metricsOf(M),
  async collect(ctx) {
    const { options, sink } = ctx;
    const tier = QueueStatsTier.in(ctx.memory);
    const plan = planQueueQuery(ctx, tier.due(options.stats_every));
    // Statistics switched off on the broker since they were fetched: none will come to refresh them.
    if (ctx.broker.statisticsDisabled) tier.clear();
    // A poll that fetches the statistics records them for the counts-only polls that follow.
    const recorder = plan.mode === 'totals' ? undefined : tier.recorder(sink, STATS_DEFS);
    const writer: SampleWriter = recorder ?? sink;
    const consumerCounts = plan.consumerCounts ? await fetchConsumerCounts(ctx.api) : undefined;
    if (plan.consumerCounts && !consumerCounts) {
      const served = options.mode === 'totals' ? 'are not served (mode totals fetches no statistics)' : 'are served only by the polls that fetch statistics';
      warnOnce(ctx, 'no-consumers', {}, `/api/consumers answered 404: per-queue consumer counts ${served}`);
    }
    const vhostFilter = new NameFilter(options.vhosts);
    // A sharded replica asks only for its own vhosts' queues (when it asks per vhost).
    const watched = (vhost: string) => vhostFilter.matches(vhost) && (ctx.share?.ownsVhost(vhost) ?? true);
    const queueFilter = new NameFilter(options.queues);
    const counters = MonotonicCounters.in(ctx.memory);
    const rates = options.rates === true ? true : options.rates === false ? false : new Set(options.rates);
    const aggregates = new Aggregates();
    let filtered = 0;
    let capped = 0;
    let emitted = 0;
    let seen = 0;
    let sinceTurn = performance.now();
    // One vhost's answer at a time, in vhost order: only the answers in flight are held in memory.
    for await (const queue of queueRecords(ctx.api, plan, watched, options, sink)) {
      // Tens of thousands of queues: let scrapes in between, so none waits for the whole loop.
      // By time, not by count: on a loaded machine 1000 queues took 100 ms and more.
      if (++seen % 50 === 0 && performance.now() - sinceTurn > TURN_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sinceTurn = performance.now();
      }
      const vhost = queue.vhost as string;
      const name = queue.name as string;
      if (!plan.perVhost && !watched(vhost)) continue;
      if (consumerCounts) queue.consumers = consumerCounts.get(`${vhost}\u0000${name}`) ?? 0;
      aggregates.add(queue);
      if (
        !queueFilter.matches(name) ||
        (options.skip_exclusive && queue.exclusive === true) ||
        (options.skip_auto_delete && queue.auto_delete === true)
      ) {
        filtered++;
        continue;
      }
      if (options.max_queues > 0 && emitted >= options.max_queues) {
        capped++;
        continue;
      }
      emitted++;
      const labels = renderLabels(['vhost', 'queue'], [vhost, name]);
      for (const table of plan.tables) emitRecord(writer, table, queue, labels, { rates, counters });
      emitQueueExtras(ctx, writer, queue, labels, plan.mode);
      if (!recorder) tier.replay(sink, labels);
      if (options.info) sink.add(M.info, infoLabels(queue), 1);
    }
    // Counters are read only from the statistics list: between its polls they keep their state.
    if (recorder) counters.commit();
    else aggregates.useStatsSums(tier.heldSums);
    aggregates.emit(ctx);
    const now = Date.now();
    tier.commit(now, recorder ? { recorder, sums: aggregates.statsSums() } : undefined);
    const age = tier.ageSeconds(now);
    if (age !== undefined) sink.add(M.statisticsAge, [], age);
    sink.add(M.seriesFiltered, [], filtered);
    sink.add(M.seriesCapped, [], capped);
    sink.add(M.query, [plan.mode, String(plan.perVhost), String(plan.pageSize > 0)], 1);
    sink.add(M.degraded, [], plan.degraded ? 1 : 0);
    if (capped > 0) warnOnce(ctx, 'capped', { capped, max_queues: options.max_queues }, 'per-queue series capped by collectors.queues.max_queues');
    if (plan.degraded) warnOnce(ctx, 'degraded', {}, 'the broker has statistics disabled: queue series are limited to message counts');
  },
};

/** The cheapest request that yields the enabled metrics on this broker. */
export function planQueueQuery(
  ctx: Pick<CollectContext<QueueOptions>, 'broker' | 'options' | 'log' | 'memory'>,
  statsDue = true,
): QueuePlan {
  const { options, broker } = ctx;
  const wantsRates = options.rates === true || (Array.isArray(options.rates) && options.rates.length > 0);
  const wantsStats = options.details || options.message_stats || wantsRates;
  let mode: Mode;
  if (options.mode === 'auto') mode = broker.statisticsDisabled || !wantsStats || !statsDue ? 'totals' : 'columns';
  else mode = statsDue ? options.mode : 'totals';
  if (mode === 'detailed' && broker.variant === 'A') {
    warnOnce(ctx, 'no-detailed', {}, '/api/queues/detailed exists from 3.13 on: using mode columns');
    mode = 'columns';
  }
  const consumerCounts = mode === 'totals' && options.details && !broker.statisticsDisabled;
  const tables = [countsTable];
  if (mode !== 'totals' && options.details) tables.push(detailsTable);
  if (options.details && (mode !== 'totals' || consumerCounts)) tables.push(consumersTable);
  if (mode !== 'totals') {
    if (options.details) tables.push(moreDetailsTable);
    if (options.message_stats) tables.push(messageStatsTable);
  }
  const metadata = [...IDENTITY_COLUMNS];
  if (options.info) metadata.push(...INFO_COLUMNS);
  else {
    if (options.skip_exclusive) metadata.push('exclusive');
    if (options.skip_auto_delete) metadata.push('auto_delete');
  }
  const query: Record<string, string | boolean> = {};
  if (mode === 'totals') {
    query.disable_stats = true;
    query.enable_queue_totals = true;
    query.columns = [...metadata, 'members', 'online', ...countsTable.rows.map((r) => r.field)].join(',');
  } else if (mode === 'columns') {
    const rates = options.rates;
    const columns = new Set(metadata);
    if (options.details) DETAIL_COLUMNS.forEach((c) => columns.add(c));
    for (const table of tables) {
      for (const row of table.rows) {
        columns.add(row.field);
        if (row.ratePath && (rates === true || (Array.isArray(rates) && rates.includes(row.field)))) columns.add(`${row.field}_details`);
      }
    }
    query.columns = [...columns].join(',');
  }
  const pageSize = options.filter_on_broker && options.queues.include !== undefined ? options.page_size || 500 : options.page_size;
  if (pageSize > 0 && options.filter_on_broker && options.queues.include !== undefined) {
    query.name = options.queues.include;
    query.use_regex = true;
  }
  return {
    mode,
    path: mode === 'detailed' ? '/api/queues/detailed' : '/api/queues',
    query,
    perVhost: mode !== 'detailed' && options.per_vhost !== false,
    pageSize,
    degraded: broker.statisticsDisabled && wantsStats,
    consumerCounts,
    tables,
  };
}

async function* queueRecords(
  api: BrokerApi,
  plan: QueuePlan,
  watched: (vhost: string) => boolean,
  options: QueueOptions,
  drops: DropCounter,
): AsyncGenerator<QueueRecord> {
  const named = (q: QueueRecord) => typeof q.name === 'string' && typeof q.vhost === 'string';
  const key = (q: QueueRecord) => (named(q) ? `${q.vhost as string}\u0000${q.name as string}` : undefined);
  const valid = (q: QueueRecord) => named(q) || (drops.drop('no_name'), false);
  let perVhost = plan.perVhost;
  let vhosts: string[] = [];
  if (perVhost) {
    const listed = await api.get<{ name?: unknown }[]>('/api/vhosts', { columns: 'name' });
    if (!Array.isArray(listed)) throw new Error('/api/vhosts did not answer a JSON list');
    vhosts = [...new Set(listed.map((v) => v?.name).filter((n): n is string => typeof n === 'string' && watched(n)))];
    // auto: a single request is as cheap when there is one vhost (or none filtered out).
    if (options.per_vhost === 'auto' && vhosts.length <= 1 && listed.length <= 1) perVhost = false;
    // Thousands of requests cost the broker and the exporter more than one list: the vhost
    // filter is then applied to the records instead.
    if (vhosts.length > options.per_vhost_max) perVhost = false;
    plan.perVhost = perVhost;
  }
  const fetch = (path: string) => fetchWholeOrPaged<QueueRecord>(api, path, plan.query, { pageSize: plan.pageSize, key, drops });
  if (!perVhost) {
    yield* (await fetch(plan.path)).filter(valid);
    return;
  }
  // Every request is issued at once (the client bounds how many run); answers are consumed in
  // vhost order. A vhost deleted after it was listed answers 404 and contributes nothing.
  const pending = vhosts.map((vhost) =>
    fetch(apiPath('queues', vhost)).catch((error: unknown) => {
      if (isNotFound(error)) return [];
      throw error;
    }),
  );
  // If one fails, the poll fails with it; the others' outcomes are not needed any more.
  for (const answer of pending) answer.catch(() => undefined);
  for (let i = 0; i < pending.length; i++) {
    const list = await pending[i]!;
    pending[i] = Promise.resolve([]); // let the answer go once it is consumed
    yield* list.filter(valid);
  }
}

function emitQueueExtras(ctx: CollectContext<QueueOptions>, sink: SampleWriter, queue: QueueRecord, labels: string, mode: Mode): void {
  if (typeof queue.state === 'string') sink.addRendered(M.running, labels, RUNNING_STATES.has(queue.state) ? 1 : 0);
  if (Array.isArray(queue.members)) sink.addRendered(M.members, labels, queue.members.length);
  if (Array.isArray(queue.online)) sink.addRendered(M.membersOnline, labels, queue.online.length);
  if (mode === 'totals' || !ctx.options.details) return;
  const idle = parseTimestamp(queue.idle_since);
  if (idle !== undefined) sink.addRendered(M.idleSince, labels, idle);
}

/** idle_since is `2026-11-22T03:17:56.076+00:00` in 3.10+, `2019-03-13 11:17:44` (UTC) before. */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value) ? `${value.replace(' ', 'T')}Z` : value;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : String(value);
}

function infoLabels(queue: QueueRecord): string[] {
  const args = (queue.arguments !== null && typeof queue.arguments === 'object' ? queue.arguments : {}) as Record<string, unknown>;
  return [
    text(queue.vhost),
    text(queue.name),
    text(queue.type),
    text(queue.durable),
    text(queue.auto_delete),
    text(queue.exclusive),
    text(queue.policy),
    text(queue.operator_policy),
    text(queue.leader ?? queue.node),
    text(queue.state),
    ...QUEUE_INFO_ARGUMENTS.map((a) => text(args[a])),
  ];
}

interface Aggregate {
  queues: number;
  messages: number;
  ready: number;
  unacked: number;
  bytes: number;
  consumers: number;
  memory: number;
  notRunning: number;
  readyWithoutConsumers: number;
  /** The sums some queue of the group reported a value for. */
  seen: Set<Summed>;
}

type Summed = 'messages' | 'ready' | 'unacked' | 'bytes' | 'consumers' | 'memory';

/**
 * Per vhost and queue type, over every fetched queue, before filters and the cap. A sum is
 * served only when some queue of the group reported the field: a broker with statistics off
 * (and no queue totals) reports no counts, which must not become 0.
 */
class Aggregates {
  private readonly groups = new Map<string, Aggregate>();

  add(queue: QueueRecord): void {
    const vhost = queue.vhost as string;
    const type = text(queue.type) || 'classic';
    const key = `${vhost}\u0000${type}`;
    let agg = this.groups.get(key);
    if (!agg) {
      agg = { queues: 0, messages: 0, ready: 0, unacked: 0, bytes: 0, consumers: 0, memory: 0, notRunning: 0, readyWithoutConsumers: 0, seen: new Set() };
      this.groups.set(key, agg);
    }
    agg.queues++;
    const sum = (what: Summed, raw: unknown): number | undefined => {
      const value = toSampleValue(raw);
      if (value === undefined) return undefined;
      agg[what] += value;
      agg.seen.add(what);
      return value;
    };
    sum('messages', queue.messages);
    const ready = sum('ready', queue.messages_ready);
    sum('unacked', queue.messages_unacknowledged);
    sum('bytes', queue.message_bytes);
    sum('memory', queue.memory);
    const consumers = sum('consumers', queue.consumers);
    if (ready !== undefined && ready > 0 && consumers === 0) agg.readyWithoutConsumers++;
    if (typeof queue.state === 'string' && !RUNNING_STATES.has(queue.state)) agg.notRunning++;
  }

  /** The sums only the statistics list yields, per group, to serve on the counts-only polls. */
  statsSums(): StatsSums {
    const sums: StatsSums = new Map();
    for (const [key, agg] of this.groups) {
      sums.set(key, {
        ...(agg.seen.has('bytes') ? { bytes: agg.bytes } : {}),
        ...(agg.seen.has('memory') ? { memory: agg.memory } : {}),
      });
    }
    return sums;
  }

  /** A counts-only poll: the statistics sums as the last poll that fetched them found them. */
  useStatsSums(sums: StatsSums): void {
    for (const [key, agg] of this.groups) {
      const held = sums.get(key);
      if (held?.bytes !== undefined && !agg.seen.has('bytes')) {
        agg.bytes = held.bytes;
        agg.seen.add('bytes');
      }
      if (held?.memory !== undefined && !agg.seen.has('memory')) {
        agg.memory = held.memory;
        agg.seen.add('memory');
      }
    }
  }

  emit(ctx: CollectContext<QueueOptions>): void {
    const { sink } = ctx;
    for (const [key, agg] of this.groups) {
      const labels = key.split('\u0000');
      const seen = agg.seen;
      sink.add(M.vhostQueues, labels, agg.queues);
      sink.add(M.vhostQueuesNotRunning, labels, agg.notRunning);
      if (seen.has('messages')) sink.add(M.vhostQueueMessages, labels, agg.messages);
      if (seen.has('ready')) sink.add(M.vhostQueueMessagesReady, labels, agg.ready);
      if (seen.has('unacked')) sink.add(M.vhostQueueMessagesUnacked, labels, agg.unacked);
      if (seen.has('bytes')) sink.add(M.vhostQueueMessagesBytes, labels, agg.bytes);
      if (seen.has('memory')) sink.add(M.vhostQueueMemory, labels, agg.memory);
      if (seen.has('consumers')) sink.add(M.vhostQueueConsumers, labels, agg.consumers);
      if (seen.has('consumers') && seen.has('ready')) sink.add(M.vhostQueuesWithoutConsumers, labels, agg.readyWithoutConsumers);
    }
  }
}

function warnOnce(ctx: Pick<CollectContext<QueueOptions>, 'log' | 'memory'>, key: string, fields: Record<string, unknown>, message: string): void {
  logOnce(ctx, 'warn', key, fields, message);
}
