import { queueMetrics as M } from './metrics.js';
import type { MetricDef } from '../../model/metric-def.js';
import { fieldTable } from '../kit/field-table.js';

/**
 * The per-queue families read straight from a queue's record, grouped by what asks for them
 * (the field and scaling of each are on its catalogue row). Tables are emitted in this order,
 * which is the order the families are served in.
 */

/** Always: the counts-only list carries them too. */
export const countsTable = fieldTable([M.messages, M.messagesReady, M.messagesUnacked]);

/** Option details, from the statistics list. */
export const detailsTable = fieldTable([
  M.messagesBytes, M.messagesReadyBytes, M.messagesUnackedBytes,
  M.messagesRam, M.messagesReadyRam, M.messagesUnackedRam, M.messagesRamBytes,
  M.messagesPersistent, M.messagesPersistentBytes, M.messagesPagedOut, M.messagesPagedOutBytes,
  M.messagesDlx, M.messagesDlxBytes,
]);

/** Served every poll: from the record on statistics polls, else from /api/consumers. */
export const consumersTable = fieldTable([M.consumers]);

/** The rest of the details, after consumers. */
export const moreDetailsTable = fieldTable([
  M.consumerUtilisation, M.consumerCapacity, M.memory, M.headMessageTimestamp, M.reductions,
  M.messagesDelayed, M.messagesReadyReturned, M.publishers, M.deliveryLimit, M.streamSegments,
]);

/** Option message_stats. */
export const messageStatsTable = fieldTable([
  M.published, M.deliveredAck, M.deliveredNoAck, M.getAck, M.getNoAck, M.getEmpty, M.deliverGet,
  M.redelivered, M.acked, M.confirmed, M.returnedUnroutable, M.droppedUnroutable,
]);

/** What only the statistics list carries: served again, unchanged, by the counts-only polls between. */
export const STATS_DEFS: ReadonlySet<MetricDef> = new Set([
  ...detailsTable.metrics,
  ...moreDetailsTable.metrics,
  ...messageStatsTable.metrics,
  M.idleSince,
  // The signals read from counters and bytes (signals.ts): computed by the statistics polls only.
  M.withoutProgress, M.unackedStalled, M.consumersStuck, M.bytesLimitRatio, M.bytesLimitTimeToFull,
  ...countsTable.rows.flatMap((row) => (row.metric.rate ? [row.metric.rate] : [])),
]);
