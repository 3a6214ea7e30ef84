import { defineMetrics } from '../../model/metric-def.js';

const c = 'counter' as const;
const g = 'gauge' as const;
const STATS = 'Cluster-wide, from /api/overview message_stats.';

export const overviewMetrics = defineMetrics('overview', {
  identity: { name: 'rabbitmq_identity_info', type: g, labels: ['rabbitmq_cluster'], help: 'The cluster this exporter watches; value 1. Join on it to add the cluster name to other series.' },
  build: {
    name: 'rabbitmq_build_info',
    type: g,
    labels: ['rabbitmq_version', 'erlang_version', 'management_version', 'product_name', 'product_version'],
    names: { kbudde: { name: 'rabbitmq_version_info', labels: ['rabbitmq', 'erlang', 'node', 'cluster'], labelFrom: { rabbitmq: 'rabbitmq_version', erlang: 'erlang_version' } } },
    help: 'Versions the broker reports in /api/overview; value 1.',
  },
  simulated: { name: 'rabbitmq_simulated_info', type: g, labels: ['simulation'], help: 'Present only when the cluster is not real: the management API answering is a simulator (the exporter\'s demo, npm run demo) and every other series of it is made up; value 1.' },
  statisticsEnabled: { name: 'rabbitmq_management_statistics_enabled', type: g, help: '1 when the management plugin collects statistics, 0 when management.disable_stats is on (message rates, queue totals and node statistics are then absent).' },
  listener: { name: 'rabbitmq_listener_info', type: g, labels: ['node', 'protocol', 'ip_address', 'port'], help: 'A listener a node has open, from /api/overview; value 1.' },
  statsDbEventQueue: { source: { field: 'statistics_db_event_queue' }, name: 'rabbitmq_management_stats_db_event_queue', type: g, help: 'Statistics events waiting to be processed by the management database; a growing value means the statistics lag.' },

  connections: { source: { field: 'object_totals.connections' }, name: 'rabbitmq_connections', names: { kbudde: { name: 'rabbitmq_connections', labels: ['cluster'] } }, type: g, help: 'Open client connections in the cluster (object_totals).' },
  channels: { source: { field: 'object_totals.channels' }, name: 'rabbitmq_channels', names: { kbudde: { name: 'rabbitmq_channels', labels: ['cluster'] } }, type: g, help: 'Open channels in the cluster (object_totals).' },
  consumers: { source: { field: 'object_totals.consumers' }, name: 'rabbitmq_consumers', names: { kbudde: { name: 'rabbitmq_consumers', labels: ['cluster'] } }, type: g, help: 'Consumers in the cluster (object_totals).' },
  queues: { source: { field: 'object_totals.queues' }, name: 'rabbitmq_queues', names: { kbudde: { name: 'rabbitmq_queues', labels: ['cluster'] } }, type: g, help: 'Queues in the cluster (object_totals).' },
  exchanges: { source: { field: 'object_totals.exchanges' }, name: 'rabbitmq_exchanges', names: { kbudde: { name: 'rabbitmq_exchanges', labels: ['cluster'] } }, type: g, help: 'Exchanges in the cluster (object_totals).' },

  messages: { source: { field: 'queue_totals.messages' }, name: 'rabbitmq_messages', names: { kbudde: { name: 'rabbitmq_queue_messages_global', labels: ['cluster'] } }, type: g, rate: true, help: 'Messages in all queues, ready plus unacknowledged (queue_totals).' },
  messagesReady: { source: { field: 'queue_totals.messages_ready' }, name: 'rabbitmq_messages_ready', names: { kbudde: { name: 'rabbitmq_queue_messages_ready_global', labels: ['cluster'] } }, type: g, rate: true, help: 'Messages ready for delivery in all queues (queue_totals).' },
  messagesUnacked: { source: { field: 'queue_totals.messages_unacknowledged' }, name: 'rabbitmq_messages_unacked', names: { kbudde: { name: 'rabbitmq_queue_messages_unacknowledged_global', labels: ['cluster'] } }, type: g, rate: true, help: 'Messages delivered and not yet acknowledged, in all queues (queue_totals).' },

  received: { source: { field: 'message_stats.publish' }, name: 'rabbitmq_global_messages_received_total', rateNames: { kbudde: { name: 'rabbitmq_messages_publish_rate', labels: ['cluster'] } }, type: c, rate: true, help: `Messages published into the broker. ${STATS}` },
  receivedConfirm: { source: { field: 'message_stats.confirm' }, name: 'rabbitmq_global_messages_confirmed_total', type: c, rate: true, help: `Messages confirmed to publishers. ${STATS}` },
  delivered: { source: { field: 'message_stats.deliver_get' }, name: 'rabbitmq_global_messages_delivered_total', type: c, rate: true, help: `Messages delivered to consumers and basic.get, any ack mode (deliver_get). ${STATS}` },
  deliveredConsumeManualAck: { source: { field: 'message_stats.deliver' }, name: 'rabbitmq_global_messages_delivered_consume_manual_ack_total', rateNames: { kbudde: { name: 'rabbitmq_messages_deliver_rate', labels: ['cluster'] } }, type: c, rate: true, help: `Messages delivered to consumers in manual-ack mode (deliver). ${STATS}` },
  deliveredConsumeAutoAck: { source: { field: 'message_stats.deliver_no_ack' }, name: 'rabbitmq_global_messages_delivered_consume_auto_ack_total', rateNames: { kbudde: { name: 'rabbitmq_messages_deliver_no_ack_rate', labels: ['cluster'] } }, type: c, rate: true, help: `Messages delivered to consumers in auto-ack mode (deliver_no_ack). ${STATS}` },
  deliveredGetManualAck: { source: { field: 'message_stats.get' }, name: 'rabbitmq_global_messages_delivered_get_manual_ack_total', type: c, rate: true, help: `Messages fetched with basic.get in manual-ack mode (get). ${STATS}` },
  deliveredGetAutoAck: { source: { field: 'message_stats.get_no_ack' }, name: 'rabbitmq_global_messages_delivered_get_auto_ack_total', type: c, rate: true, help: `Messages fetched with basic.get in auto-ack mode (get_no_ack). ${STATS}` },
  getEmpty: { source: { field: 'message_stats.get_empty' }, name: 'rabbitmq_global_messages_get_empty_total', type: c, rate: true, help: `basic.get calls that found the queue empty. ${STATS}` },
  redelivered: { source: { field: 'message_stats.redeliver' }, name: 'rabbitmq_global_messages_redelivered_total', type: c, rate: true, help: `Messages delivered again after a requeue. ${STATS}` },
  acknowledged: { source: { field: 'message_stats.ack' }, name: 'rabbitmq_global_messages_acknowledged_total', type: c, rate: true, help: `Messages acknowledged by consumers. ${STATS}` },
  unroutableReturned: { source: { field: 'message_stats.return_unroutable' }, name: 'rabbitmq_global_messages_unroutable_returned_total', type: c, rate: true, help: `Mandatory messages returned to publishers as unroutable. ${STATS}` },
  unroutableDropped: { source: { field: 'message_stats.drop_unroutable' }, name: 'rabbitmq_global_messages_unroutable_dropped_total', type: c, rate: true, help: `Messages dropped as unroutable. ${STATS}` },
  diskReads: { source: { field: 'message_stats.disk_reads' }, name: 'rabbitmq_global_messages_read_from_disk_total', type: c, rate: true, help: `Messages read from disk by queues. ${STATS}` },
  diskWrites: { source: { field: 'message_stats.disk_writes' }, name: 'rabbitmq_global_messages_written_to_disk_total', type: c, rate: true, help: `Messages written to disk by queues. ${STATS}` },

  connectionsOpened: { source: { field: 'churn_rates.connection_created' }, name: 'rabbitmq_cluster_connections_opened_total', type: c, rate: true, help: 'Connections opened, summed over all nodes (churn_rates). Per node: rabbitmq_connections_opened_total.' },
  connectionsClosed: { source: { field: 'churn_rates.connection_closed' }, name: 'rabbitmq_cluster_connections_closed_total', type: c, rate: true, help: 'Connections closed, summed over all nodes (churn_rates).' },
  channelsOpened: { source: { field: 'churn_rates.channel_created' }, name: 'rabbitmq_cluster_channels_opened_total', type: c, rate: true, help: 'Channels opened, summed over all nodes (churn_rates).' },
  channelsClosed: { source: { field: 'churn_rates.channel_closed' }, name: 'rabbitmq_cluster_channels_closed_total', type: c, rate: true, help: 'Channels closed, summed over all nodes (churn_rates).' },
  queuesDeclared: { source: { field: 'churn_rates.queue_declared' }, name: 'rabbitmq_cluster_queues_declared_total', type: c, rate: true, help: 'Queue declarations, summed over all nodes (churn_rates).' },
  queuesCreated: { source: { field: 'churn_rates.queue_created' }, name: 'rabbitmq_cluster_queues_created_total', type: c, rate: true, help: 'Queues created, summed over all nodes (churn_rates).' },
  queuesDeleted: { source: { field: 'churn_rates.queue_deleted' }, name: 'rabbitmq_cluster_queues_deleted_total', type: c, rate: true, help: 'Queues deleted, summed over all nodes (churn_rates).' },
});
