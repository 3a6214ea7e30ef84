import { defineMetrics } from '../../model/metric-def.js';

const c = 'counter' as const;
const g = 'gauge' as const;
const NODE_PROTOCOL = ['node', 'protocol'] as const;
const NODE_PROTOCOL_QUEUE_TYPE = ['node', 'protocol', 'queue_type'] as const;
/** The plugin's aggregated rabbitmq_channel_<suffix> of a node (the sum over its channels), served per node. */
function channelRow(suffix: string, type: 'counter' | 'gauge', what: string) {
  return { name: `rabbitmq_node_channel_${suffix}`, type, labels: ['node'], help: `${what}: rabbitmq_prometheus's rabbitmq_channel_${suffix} (GET /metrics).` } as const;
}
/** The metadata store's (Khepri's) Raft member on a node: the plugin's `family` of module rabbit_khepri (GET /metrics), served per node. */
function metadataStoreRow(suffix: string, type: 'counter' | 'gauge', what: string, family: string) {
  return { name: `rabbitmq_metadata_store_raft_${suffix}`, type, labels: ['node'], help: `${what}: rabbitmq_prometheus's ${family}{module="rabbit_khepri"} (GET /metrics, where RabbitMQ 4.3's plugin serves it; those of 4.0 and 3.10 do not).` } as const;
}
const BY_QUEUE_TYPE = 'by protocol and the queue type delivering (rabbit_classic_queue, rabbit_quorum_queue, ...): rabbitmq_prometheus\'s';

/**
 * What only rabbitmq_prometheus counts, per node. Each row's help names the plugin family it is
 * read from (`/metrics` for the node's global counters, `/metrics/detailed?family=` for the rest).
 * The per-queue counters the plugin serves when statistics are disabled are the queue collector's
 * own rows (queues/metrics.ts), listed in queue-counters.ts.
 */
export const pluginMetrics = defineMetrics('plugin', {
  deadLettered: { name: 'rabbitmq_node_messages_dead_lettered_total', type: c, labels: ['node', 'queue_type', 'dead_letter_strategy', 'reason'], help: 'Messages dead-lettered on the node, by the reason (expired, rejected, maxlen, delivery_limit): rabbitmq_prometheus\'s rabbitmq_global_messages_dead_lettered_<reason>_total (GET /metrics), one series per queue type and dead-letter strategy.' },
  deadLetteredConfirmed: { name: 'rabbitmq_node_messages_dead_lettered_confirmed_total', type: c, labels: ['node', 'queue_type', 'dead_letter_strategy'], help: 'Messages dead-lettered at least once and confirmed by their target queues, on the node: rabbitmq_prometheus\'s rabbitmq_global_messages_dead_lettered_confirmed_total (GET /metrics).' },
  messageSize: { name: 'rabbitmq_node_message_size_bytes', type: 'histogram', labels: NODE_PROTOCOL, help: 'Sizes of the messages the node received from publishers, by protocol: rabbitmq_prometheus\'s rabbitmq_message_size_bytes (GET /metrics, RabbitMQ 4.1+), its buckets as the plugin gives them.' },
  received: { name: 'rabbitmq_node_messages_received_total', type: c, labels: NODE_PROTOCOL, help: 'Messages received from publishers on the node, by protocol: rabbitmq_prometheus\'s rabbitmq_global_messages_received_total (GET /metrics).' },
  routed: { name: 'rabbitmq_node_messages_routed_total', type: c, labels: NODE_PROTOCOL, help: 'Messages the node routed to queues or streams, by protocol: rabbitmq_prometheus\'s rabbitmq_global_messages_routed_total (GET /metrics).' },
  confirmed: { name: 'rabbitmq_node_messages_confirmed_total', type: c, labels: NODE_PROTOCOL, help: 'Messages the node confirmed to publishers, by protocol: rabbitmq_prometheus\'s rabbitmq_global_messages_confirmed_total (GET /metrics).' },
  receivedConfirm: { name: 'rabbitmq_node_messages_received_confirm_total', type: c, labels: NODE_PROTOCOL, help: 'Messages received from publishers in confirm mode on the node, by protocol: rabbitmq_prometheus\'s rabbitmq_global_messages_received_confirm_total (GET /metrics).' },
  unroutableReturned: { name: 'rabbitmq_node_messages_unroutable_returned_total', type: c, labels: NODE_PROTOCOL, help: 'Mandatory messages the node returned to publishers as unroutable, by protocol: rabbitmq_prometheus\'s rabbitmq_global_messages_unroutable_returned_total (GET /metrics).' },
  unroutableDropped: { name: 'rabbitmq_node_messages_unroutable_dropped_total', type: c, labels: NODE_PROTOCOL, help: 'Messages the node dropped as unroutable, by protocol: rabbitmq_prometheus\'s rabbitmq_global_messages_unroutable_dropped_total (GET /metrics).' },
  delivered: { name: 'rabbitmq_node_messages_delivered_total', type: c, labels: NODE_PROTOCOL_QUEUE_TYPE, help: `Messages delivered to consumers and basic.get on the node, any ack mode, ${BY_QUEUE_TYPE} rabbitmq_global_messages_delivered_total (GET /metrics).` },
  deliveredConsumeManualAck: { name: 'rabbitmq_node_messages_delivered_consume_manual_ack_total', type: c, labels: NODE_PROTOCOL_QUEUE_TYPE, help: `Messages delivered to consumers in manual-ack mode on the node, ${BY_QUEUE_TYPE} rabbitmq_global_messages_delivered_consume_manual_ack_total (GET /metrics).` },
  deliveredConsumeAutoAck: { name: 'rabbitmq_node_messages_delivered_consume_auto_ack_total', type: c, labels: NODE_PROTOCOL_QUEUE_TYPE, help: `Messages delivered to consumers in auto-ack mode on the node, ${BY_QUEUE_TYPE} rabbitmq_global_messages_delivered_consume_auto_ack_total (GET /metrics).` },
  deliveredGetManualAck: { name: 'rabbitmq_node_messages_delivered_get_manual_ack_total', type: c, labels: NODE_PROTOCOL_QUEUE_TYPE, help: `Messages fetched with basic.get in manual-ack mode on the node, ${BY_QUEUE_TYPE} rabbitmq_global_messages_delivered_get_manual_ack_total (GET /metrics).` },
  deliveredGetAutoAck: { name: 'rabbitmq_node_messages_delivered_get_auto_ack_total', type: c, labels: NODE_PROTOCOL_QUEUE_TYPE, help: `Messages fetched with basic.get in auto-ack mode on the node, ${BY_QUEUE_TYPE} rabbitmq_global_messages_delivered_get_auto_ack_total (GET /metrics).` },
  getEmpty: { name: 'rabbitmq_node_messages_get_empty_total', type: c, labels: NODE_PROTOCOL_QUEUE_TYPE, help: `basic.get calls on the node that found the queue empty, ${BY_QUEUE_TYPE} rabbitmq_global_messages_get_empty_total (GET /metrics).` },
  redelivered: { name: 'rabbitmq_node_messages_redelivered_total', type: c, labels: NODE_PROTOCOL_QUEUE_TYPE, help: `Messages the node delivered again after a requeue, ${BY_QUEUE_TYPE} rabbitmq_global_messages_redelivered_total (GET /metrics).` },
  acknowledged: { name: 'rabbitmq_node_messages_acknowledged_total', type: c, labels: NODE_PROTOCOL_QUEUE_TYPE, help: `Messages consumers acknowledged on the node, ${BY_QUEUE_TYPE} rabbitmq_global_messages_acknowledged_total (GET /metrics).` },
  publishers: { name: 'rabbitmq_node_publishers', type: g, labels: NODE_PROTOCOL, help: 'Publishers on the node, by protocol: rabbitmq_prometheus\'s rabbitmq_global_publishers (GET /metrics; RabbitMQ 3.13 and later).' },
  consumers: { name: 'rabbitmq_node_consumers', type: g, labels: NODE_PROTOCOL, help: 'Consumers on the node, by protocol: rabbitmq_prometheus\'s rabbitmq_global_consumers (GET /metrics; RabbitMQ 3.13 and later).' },
  channelConsumers: channelRow('consumers', g, 'Consumers on the node\'s channels'),
  channelUnacked: channelRow('messages_unacked', g, 'Messages delivered on the node\'s channels and not yet acknowledged'),
  channelUnconfirmed: channelRow('messages_unconfirmed', g, 'Messages published on the node\'s channels and not yet confirmed'),
  channelUncommitted: channelRow('messages_uncommitted', g, 'Messages received in transactions on the node\'s channels, not yet committed'),
  channelAcksUncommitted: channelRow('acks_uncommitted', g, 'Acknowledgements in transactions on the node\'s channels, not yet committed'),
  channelPrefetch: channelRow('prefetch', g, 'Prefetch limits of the node\'s channels, summed'),
  channelPublished: channelRow('messages_published_total', c, 'Messages published into exchanges on the node\'s channels'),
  channelConfirmed: channelRow('messages_confirmed_total', c, 'Messages published and confirmed on the node\'s channels'),
  channelUnroutableReturned: channelRow('messages_unroutable_returned_total', c, 'Mandatory messages published on the node\'s channels and returned as unroutable'),
  channelUnroutableDropped: channelRow('messages_unroutable_dropped_total', c, 'Messages published on the node\'s channels and dropped as unroutable'),
  channelReductions: channelRow('process_reductions_total', c, 'Reductions of the node\'s channel processes'),
  channelGetAck: channelRow('get_ack_total', c, 'Messages fetched with basic.get in manual-ack mode on the node\'s channels'),
  channelGet: channelRow('get_total', c, 'Messages fetched with basic.get in auto-ack mode on the node\'s channels'),
  channelDeliveredAck: channelRow('messages_delivered_ack_total', c, 'Messages delivered to consumers in manual-ack mode on the node\'s channels'),
  channelDelivered: channelRow('messages_delivered_total', c, 'Messages delivered to consumers in auto-ack mode on the node\'s channels'),
  channelRedelivered: channelRow('messages_redelivered_total', c, 'Messages redelivered on the node\'s channels'),
  channelAcked: channelRow('messages_acked_total', c, 'Messages acknowledged by consumers on the node\'s channels'),
  channelGetEmpty: channelRow('get_empty_total', c, 'basic.get calls on the node\'s channels that found the queue empty'),
  authAttempts: { name: 'rabbitmq_node_auth_attempts_total', type: c, labels: NODE_PROTOCOL, help: 'Authentication attempts on the node, by protocol: rabbitmq_prometheus\'s rabbitmq_detailed_auth_attempts_total (family auth_attempt_metrics).' },
  authSucceeded: { name: 'rabbitmq_node_auth_attempts_succeeded_total', type: c, labels: NODE_PROTOCOL, help: 'Successful authentication attempts on the node, by protocol: rabbitmq_prometheus\'s rabbitmq_detailed_auth_attempts_succeeded_total (family auth_attempt_metrics).' },
  authFailed: { name: 'rabbitmq_node_auth_attempts_failed_total', type: c, labels: NODE_PROTOCOL, help: 'Failed authentication attempts on the node, by protocol: rabbitmq_prometheus\'s rabbitmq_detailed_auth_attempts_failed_total (family auth_attempt_metrics).' },
  raftCommitLatency: { name: 'rabbitmq_queue_raft_commit_latency_seconds', type: g, labels: ['node', 'vhost', 'queue'], help: 'Time the quorum queue\'s Raft member on the node took to commit its last entry: rabbitmq_prometheus\'s rabbitmq_detailed_raft_commit_latency_seconds (family ra_metrics; rabbitmq_detailed_raft_entry_commit_latency_seconds before RabbitMQ 4.2).' },
  raftCommitIndex: { name: 'rabbitmq_queue_raft_commit_index', type: g, labels: ['node', 'vhost', 'queue'], help: 'Last committed Raft index of the quorum queue\'s member on the node (a follower behind its leader lags by the difference): rabbitmq_prometheus\'s rabbitmq_detailed_raft_commit_index (family ra_metrics).' },
  raftTerm: { name: 'rabbitmq_queue_raft_term', type: g, labels: ['node', 'vhost', 'queue'], help: 'Raft term of the quorum queue\'s member on the node; it grows at each leader election: rabbitmq_prometheus\'s rabbitmq_detailed_raft_term (family ra_metrics; rabbitmq_detailed_raft_term_total before RabbitMQ 4.2).' },
  raftLastApplied: { name: 'rabbitmq_queue_raft_last_applied_index', type: g, labels: ['node', 'vhost', 'queue'], help: 'Last Raft index the quorum queue\'s member on the node applied: rabbitmq_prometheus\'s rabbitmq_detailed_raft_last_applied (family ra_metrics; rabbitmq_detailed_raft_log_last_applied_index before RabbitMQ 4.2).' },
  raftLastWritten: { name: 'rabbitmq_queue_raft_last_written_index', type: g, labels: ['node', 'vhost', 'queue'], help: 'Last Raft index the quorum queue\'s member on the node wrote to its log: rabbitmq_prometheus\'s rabbitmq_detailed_raft_last_written_index (family ra_metrics; rabbitmq_detailed_raft_log_last_written_index before RabbitMQ 4.2).' },
  raftSnapshotIndex: { name: 'rabbitmq_queue_raft_snapshot_index', type: g, labels: ['node', 'vhost', 'queue'], help: 'Raft index of the last snapshot of the quorum queue\'s member on the node (entries written since then are in its log): rabbitmq_prometheus\'s rabbitmq_detailed_raft_snapshot_index (family ra_metrics; rabbitmq_detailed_raft_log_snapshot_index before RabbitMQ 4.2).' },
  streamErrors: { name: 'rabbitmq_node_stream_errors_total', type: c, labels: ['node', 'protocol', 'error'], help: 'Errors the node answered stream protocol clients with, by error (access_refused, stream_does_not_exist, authentication_failure, ...): rabbitmq_prometheus\'s rabbitmq_global_stream_error_<error>_total (GET /metrics; with the rabbitmq_stream plugin).' },
  fileDescriptorAlarm: { name: 'rabbitmq_alarms_file_descriptor_limit', type: g, labels: ['node'], help: '1 when the node has raised the file descriptor limit alarm: rabbitmq_prometheus\'s rabbitmq_alarms_file_descriptor_limit (GET /metrics; the management API reports no such alarm).' },
  unreachablePeers: { name: 'rabbitmq_node_unreachable_cluster_peers', type: g, labels: ['node'], help: 'Cluster peers the node cannot reach: rabbitmq_prometheus\'s rabbitmq_unreachable_cluster_peers_count (GET /metrics; RabbitMQ 4.0 and later).' },
  metadataTerm: metadataStoreRow('term', g, 'Raft term of the node\'s metadata store member (Khepri); it grows by one or more at each leader election', 'rabbitmq_raft_term'),
  metadataElections: metadataStoreRow('elections_total', c, 'Leader elections the node\'s metadata store member (Khepri) started', 'rabbitmq_raft_elections'),
  metadataCommitIndex: metadataStoreRow('commit_index', g, 'Last committed Raft index of the node\'s metadata store member (Khepri; a member behind the others lags by the difference)', 'rabbitmq_raft_commit_index'),
  metadataLastApplied: metadataStoreRow('last_applied_index', g, 'Last Raft index the node\'s metadata store member (Khepri) applied to its state', 'rabbitmq_raft_last_applied'),
  metadataLastWritten: metadataStoreRow('last_written_index', g, 'Last Raft index the node\'s metadata store member (Khepri) wrote to its log', 'rabbitmq_raft_last_written_index'),
  metadataSnapshotIndex: metadataStoreRow('snapshot_index', g, 'Raft index of the last snapshot of the node\'s metadata store member (Khepri); -1 before the first', 'rabbitmq_raft_snapshot_index'),
  metadataCommitLatency: metadataStoreRow('commit_latency_seconds', g, 'Time the node\'s metadata store member (Khepri) took to commit its last entry', 'rabbitmq_raft_commit_latency_seconds'),
  nodeUp: { name: 'rabbitmq_exporter_plugin_node_up', type: g, labels: ['node'], help: '1 when the node\'s rabbitmq_prometheus endpoint answered the last poll with text that parsed, 0 when it failed: only that node\'s plugin series are missing (rabbitmq_exporter_plugin_node_failure_info says why). `node`: the node\'s name from /api/nodes, or host:port of a configured URL.' },
  nodeFailure: { name: 'rabbitmq_exporter_plugin_node_failure_info', type: g, labels: ['node', 'reason'], help: 'Why the node\'s rabbitmq_prometheus endpoint failed in the last poll (reason: network, timeout, http_<status>, too_large, malformed_text, duplicate_node), value 1; absent while it answers.' },
  queueCountersServed: { name: 'rabbitmq_exporter_plugin_queue_counters_served', type: g, help: '1 when the per-queue message counters (rabbitmq_queue_messages_published_total, ..._delivered_ack_total, ...) come from rabbitmq_prometheus because the broker\'s management statistics are disabled, 0 when the queue collector serves them from the management API.' },
});
