import { z } from 'zod';
import { brokerReport } from '../broker/broker-self.js';
import { overviewMetrics as M } from '../catalogue/overview.js';
import type { Collector } from './collector.js';
import { emitRecord, fieldTable } from './field-table.js';

const table = fieldTable([
  { field: 'statistics_db_event_queue', metric: M.statsDbEventQueue },
  { field: 'object_totals.connections', metric: M.connections },
  { field: 'object_totals.channels', metric: M.channels },
  { field: 'object_totals.consumers', metric: M.consumers },
  { field: 'object_totals.queues', metric: M.queues },
  { field: 'object_totals.exchanges', metric: M.exchanges },
  { field: 'queue_totals.messages', metric: M.messages },
  { field: 'queue_totals.messages_ready', metric: M.messagesReady },
  { field: 'queue_totals.messages_unacknowledged', metric: M.messagesUnacked },
  { field: 'message_stats.publish', metric: M.received },
  { field: 'message_stats.confirm', metric: M.receivedConfirm },
  { field: 'message_stats.deliver_get', metric: M.delivered },
  { field: 'message_stats.deliver', metric: M.deliveredConsumeManualAck },
  { field: 'message_stats.deliver_no_ack', metric: M.deliveredConsumeAutoAck },
  { field: 'message_stats.get', metric: M.deliveredGetManualAck },
  { field: 'message_stats.get_no_ack', metric: M.deliveredGetAutoAck },
  { field: 'message_stats.get_empty', metric: M.getEmpty },
  { field: 'message_stats.redeliver', metric: M.redelivered },
  { field: 'message_stats.ack', metric: M.acknowledged },
  { field: 'message_stats.return_unroutable', metric: M.unroutableReturned },
  { field: 'message_stats.drop_unroutable', metric: M.unroutableDropped },
  { field: 'message_stats.disk_reads', metric: M.diskReads },
  { field: 'message_stats.disk_writes', metric: M.diskWrites },
  { field: 'churn_rates.connection_created', metric: M.connectionsOpened },
  { field: 'churn_rates.connection_closed', metric: M.connectionsClosed },
  { field: 'churn_rates.channel_created', metric: M.channelsOpened },
  { field: 'churn_rates.channel_closed', metric: M.channelsClosed },
  { field: 'churn_rates.queue_declared', metric: M.queuesDeclared },
  { field: 'churn_rates.queue_created', metric: M.queuesCreated },
  { field: 'churn_rates.queue_deleted', metric: M.queuesDeleted },
]);

const options = z.strictObject({
  /** Serve the API's `_details.rate` values as `_per_second` gauges. */
  rates: z.boolean().default(true),
});

interface Listener {
  node?: unknown;
  protocol?: unknown;
  ip_address?: unknown;
  port?: unknown;
}

export const overviewCollector: Collector<z.infer<typeof options>> = {
  name: 'overview',
  description: 'GET /api/overview: versions, cluster name, object and message totals, global message counters, churn, listeners. Also decides rabbitmq_up.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 1,
  describesBroker: true,
  lane: 'overview',
  optionsSchema: options,
  metrics: [M.identity, M.build, M.statisticsEnabled, M.listener, ...table.metrics],
  async collect(ctx) {
    // The target reads /api/overview for this poll (see describesBroker); run on its own (tests), the collector reads it.
    // The broker is described as this answer does (after an upgrade, not as the previous one did).
    const { overview, info: broker } = ctx.selfReport ?? brokerReport(await ctx.api.get('/api/overview'));
    const { sink } = ctx;
    sink.add(M.identity, [broker.clusterName], 1);
    sink.add(M.build, [broker.rabbitmqVersion, broker.erlangVersion, broker.managementVersion, broker.productName, broker.productVersion], 1);
    sink.add(M.statisticsEnabled, [], broker.statisticsDisabled ? 0 : 1);
    emitRecord(sink, table, overview, '', { rates: ctx.options.rates });
    const listeners = Array.isArray(overview.listeners) ? (overview.listeners as Listener[]) : [];
    for (const l of listeners) {
      sink.add(M.listener, [String(l.node ?? ''), String(l.protocol ?? ''), String(l.ip_address ?? ''), String(l.port ?? '')], 1);
    }
  },
};
