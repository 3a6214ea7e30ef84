import { defineMetrics } from '../../model/metric-def.js';

const c = 'counter' as const;
const g = 'gauge' as const;
const NODE_PROTOCOL = ['node', 'protocol'] as const;

/**
 * What only rabbitmq_prometheus counts, per node. Each row's help names the plugin family it is
 * read from (`/metrics` for the node's global counters, `/metrics/detailed?family=` for the rest).
 * The per-queue counters the plugin serves when statistics are disabled are the queue collector's
 * own rows (queues/metrics.ts), listed in queue-counters.ts.
 */
export const pluginMetrics = defineMetrics('plugin', {
  deadLettered: { name: 'rabbitmq_node_messages_dead_lettered_total', type: c, labels: ['node', 'queue_type', 'dead_letter_strategy', 'reason'], help: 'Messages dead-lettered on the node, by the reason (expired, rejected, maxlen, delivery_limit): rabbitmq_prometheus\'s rabbitmq_global_messages_dead_lettered_<reason>_total (GET /metrics), one series per queue type and dead-letter strategy.' },
  deadLetteredConfirmed: { name: 'rabbitmq_node_messages_dead_lettered_confirmed_total', type: c, labels: ['node', 'queue_type', 'dead_letter_strategy'], help: 'Messages dead-lettered at least once and confirmed by their target queues, on the node: rabbitmq_prometheus\'s rabbitmq_global_messages_dead_lettered_confirmed_total (GET /metrics).' },
  received: { name: 'rabbitmq_node_messages_received_total', type: c, labels: NODE_PROTOCOL, help: 'Messages received from publishers on the node, by protocol: rabbitmq_prometheus\'s rabbitmq_global_messages_received_total (GET /metrics).' },
  routed: { name: 'rabbitmq_node_messages_routed_total', type: c, labels: NODE_PROTOCOL, help: 'Messages the node routed to queues or streams, by protocol: rabbitmq_prometheus\'s rabbitmq_global_messages_routed_total (GET /metrics).' },
  confirmed: { name: 'rabbitmq_node_messages_confirmed_total', type: c, labels: NODE_PROTOCOL, help: 'Messages the node confirmed to publishers, by protocol: rabbitmq_prometheus\'s rabbitmq_global_messages_confirmed_total (GET /metrics).' },
  authAttempts: { name: 'rabbitmq_node_auth_attempts_total', type: c, labels: NODE_PROTOCOL, help: 'Authentication attempts on the node, by protocol: rabbitmq_prometheus\'s rabbitmq_detailed_auth_attempts_total (family auth_attempt_metrics).' },
  authSucceeded: { name: 'rabbitmq_node_auth_attempts_succeeded_total', type: c, labels: NODE_PROTOCOL, help: 'Successful authentication attempts on the node, by protocol: rabbitmq_prometheus\'s rabbitmq_detailed_auth_attempts_succeeded_total (family auth_attempt_metrics).' },
  authFailed: { name: 'rabbitmq_node_auth_attempts_failed_total', type: c, labels: NODE_PROTOCOL, help: 'Failed authentication attempts on the node, by protocol: rabbitmq_prometheus\'s rabbitmq_detailed_auth_attempts_failed_total (family auth_attempt_metrics).' },
  raftCommitLatency: { name: 'rabbitmq_queue_raft_commit_latency_seconds', type: g, labels: ['node', 'vhost', 'queue'], help: 'Time the quorum queue\'s Raft member on the node took to commit its last entry: rabbitmq_prometheus\'s rabbitmq_detailed_raft_commit_latency_seconds (family ra_metrics; rabbitmq_detailed_raft_entry_commit_latency_seconds before RabbitMQ 4.2).' },
  raftCommitIndex: { name: 'rabbitmq_queue_raft_commit_index', type: g, labels: ['node', 'vhost', 'queue'], help: 'Last committed Raft index of the quorum queue\'s member on the node (a follower behind its leader lags by the difference): rabbitmq_prometheus\'s rabbitmq_detailed_raft_commit_index (family ra_metrics).' },
  nodeUp: { name: 'rabbitmq_exporter_plugin_node_up', type: g, labels: ['node'], help: '1 when the node\'s rabbitmq_prometheus endpoint answered the last poll with text that parsed, 0 when it failed: only that node\'s plugin series are missing (rabbitmq_exporter_plugin_node_failure_info says why). `node`: the node\'s name from /api/nodes, or host:port of a configured URL.' },
  nodeFailure: { name: 'rabbitmq_exporter_plugin_node_failure_info', type: g, labels: ['node', 'reason'], help: 'Why the node\'s rabbitmq_prometheus endpoint failed in the last poll (reason: network, timeout, http_<status>, too_large, malformed_text, duplicate_node), value 1; absent while it answers.' },
  queueCountersServed: { name: 'rabbitmq_exporter_plugin_queue_counters_served', type: g, help: '1 when the per-queue message counters (rabbitmq_queue_messages_published_total, ..._delivered_ack_total, ...) come from rabbitmq_prometheus because the broker\'s management statistics are disabled, 0 when the queue collector serves them from the management API.' },
});
