import { columnsParam } from '../../broker/api-path.js';
import type { CollectContext } from '../kit/collector.js';
import { type FieldTable, fieldsRead } from '../kit/field-table.js';
import { logOnce } from '../kit/log-once.js';
import { rateSelection, wantsAnyRate } from '../kit/rates-option.js';
import type { Mode, QueueOptions } from './options.js';
import { rollsUpEveryQueue } from './family-rules.js';
import { QUORUM_COLUMNS } from './quorum-placement.js';
import { consumersTable, countsTable, detailsTable, messageStatsTable, moreDetailsTable } from './tables.js';

/** Fields read outside the tables: always (identity, aggregates, running) and for rabbitmq_queue_info. */
const IDENTITY_COLUMNS = ['name', 'vhost', 'type', 'state'];
const INFO_COLUMNS = ['durable', 'auto_delete', 'exclusive', 'policy', 'operator_policy', 'node', 'leader', 'arguments'];
const DETAIL_COLUMNS = ['idle_since', 'members', 'online'];
/** Where a queue is, for the per-node counts of the aggregates (aggregates.ts), read with rabbitmq_queue_info's. */
const NODE_COLUMNS = ['node', 'leader'];
/** What the effective length limits are read from. */
const LIMIT_COLUMNS = ['arguments', 'effective_policy_definition'];
/** What the signals read beyond the tables: the limits and dead-letter settings, and on statistics polls the counters. */
const SIGNAL_COLUMNS = ['arguments', 'effective_policy_definition'];
const SIGNAL_STATS_COLUMNS = ['message_stats.deliver_get', 'message_stats.ack', 'messages', 'messages_unacknowledged', 'message_bytes_ready'];
/** What the family roll-ups read on statistics polls (families.ts). */
const FAMILY_STATS_COLUMNS = ['message_stats.publish', 'message_stats.deliver_get', 'message_stats.ack', 'head_message_timestamp', 'consumers'];
/** What the rabbitmq_vhost_queue* aggregates read on statistics polls beyond the counts (aggregates.ts). */
const AGGREGATE_STATS_COLUMNS = ['message_bytes', 'memory', 'consumers'];
/** What `rank_by: publish_rate` reads. */
const RANKING_COLUMN = 'message_stats.publish_details';

/** What one poll asks the broker for, decided before it asks; not changed afterwards. */
export interface QueuePlan {
  readonly mode: Mode;
  readonly path: string;
  readonly query: Readonly<Record<string, string | boolean>>;
  /** Whether the list may be asked for per vhost; the vhost list then decides (see openQueueList). */
  readonly mayAskPerVhost: boolean;
  readonly pageSize: number;
  readonly degraded: boolean;
  /** Count consumers per queue from /api/consumers (the counts-only list has none). */
  readonly consumerCounts: boolean;
  /** The field tables emitted for each queue, in order. */
  readonly tables: readonly FieldTable[];
  /**
   * No queue gets per-queue series (family-rules.ts, rollsUpEveryQueue) and nothing else reads
   * every queue (signals, quorum_placement): only the roll-ups' and aggregates' columns are asked for.
   */
  readonly rollUpOnly: boolean;
}

/**
 * The cheapest request that yields the enabled metrics on this broker. `labelFields`: the fields
 * the sink's naming profile reads into labels (durable, policy, node), asked for too.
 */
export function planQueueQuery(
  ctx: Pick<CollectContext<QueueOptions>, 'broker' | 'options' | 'log' | 'carryOver'>,
  statsDue = true,
  labelFields: readonly string[] = [],
): QueuePlan {
  const { options, broker } = ctx;
  const rates = rateSelection(options.rates);
  const wantsStats = options.details || options.message_stats || wantsAnyRate(rates);
  let mode: Mode;
  if (options.mode === 'auto') mode = broker.statisticsDisabled || !wantsStats || !statsDue ? 'totals' : 'columns';
  else mode = statsDue ? options.mode : 'totals';
  if (mode === 'detailed' && broker.variant === 'A') {
    logOnce(ctx, 'warn', 'no-detailed', {}, '/api/queues/detailed exists from 3.13 on: using mode columns');
    mode = 'columns';
  }
  const rollUpOnly = rollsUpEveryQueue(options.families) && !options.signals && !options.quorum_placement;
  // Nothing per queue is served: the whole records (full, detailed) would only send more.
  if (rollUpOnly && (mode === 'detailed' || mode === 'full')) mode = 'columns';
  const consumerCounts = mode === 'totals' && options.details && !broker.statisticsDisabled;
  const tables = [countsTable];
  if (mode !== 'totals' && options.details) tables.push(detailsTable);
  if (options.details && (mode !== 'totals' || consumerCounts)) tables.push(consumersTable);
  if (mode !== 'totals') {
    if (options.details) tables.push(moreDetailsTable);
    if (options.message_stats) tables.push(messageStatsTable);
  }
  const metadata = [...IDENTITY_COLUMNS, ...labelFields];
  // INFO_COLUMNS hold exclusive and auto_delete; without them the skip settings ask for their own.
  if (options.info) metadata.push(...INFO_COLUMNS);
  else {
    if (options.skip_exclusive) metadata.push('exclusive');
    if (options.skip_auto_delete) metadata.push('auto_delete');
  }
  if (options.signals) metadata.push(...SIGNAL_COLUMNS);
  if (options.limits) metadata.push(...LIMIT_COLUMNS);
  if (options.quorum_placement) metadata.push(...QUORUM_COLUMNS);
  const query: Record<string, string | boolean> = {};
  if (rollUpOnly) {
    const counts = [...IDENTITY_COLUMNS, ...labelFields, ...(options.info ? NODE_COLUMNS : []), ...fieldsRead(countsTable, false)];
    if (mode === 'totals') Object.assign(query, { disable_stats: true, enable_queue_totals: true });
    query.columns = columnsParam(mode === 'totals' ? counts : [...counts, ...AGGREGATE_STATS_COLUMNS, ...FAMILY_STATS_COLUMNS]);
  } else if (mode === 'totals') {
    query.disable_stats = true;
    query.enable_queue_totals = true;
    query.columns = columnsParam([...metadata, 'members', 'online', ...fieldsRead(countsTable, false)]);
  } else if (mode === 'columns') {
    const ranking = options.max_queues > 0 && options.rank_by === 'publish_rate' ? [RANKING_COLUMN] : [];
    const signals = options.signals ? SIGNAL_STATS_COLUMNS : [];
    const families = options.families ? FAMILY_STATS_COLUMNS : [];
    query.columns = columnsParam([...metadata, ...(options.details ? DETAIL_COLUMNS : []), ...tables.flatMap((table) => fieldsRead(table, rates)), ...ranking, ...signals, ...families]);
  }
  const pageSize = options.filter_on_broker && options.queues.include !== undefined ? options.page_size || 500 : options.page_size;
  if (pageSize > 0 && options.filter_on_broker && options.queues.include !== undefined) {
    query.name = options.queues.include;
    query.use_regex = true;
  }
  return Object.freeze({
    mode,
    path: mode === 'detailed' ? '/api/queues/detailed' : '/api/queues',
    query,
    mayAskPerVhost: mode !== 'detailed' && options.per_vhost !== false,
    pageSize,
    degraded: broker.statisticsDisabled && wantsStats,
    consumerCounts,
    tables,
    rollUpOnly,
  });
}
