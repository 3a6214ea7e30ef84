/**
 * The exporter's metadata store rows and the plugin families (GET /metrics, module rabbit_khepri)
 * each serves, written apart from the collector's own list so that the tests check it.
 */
export const METADATA_STORE_FAMILIES = {
  rabbitmq_metadata_store_raft_term: 'rabbitmq_raft_term',
  rabbitmq_metadata_store_raft_elections_total: 'rabbitmq_raft_elections',
  rabbitmq_metadata_store_raft_commit_index: 'rabbitmq_raft_commit_index',
  rabbitmq_metadata_store_raft_last_applied_index: 'rabbitmq_raft_last_applied',
  rabbitmq_metadata_store_raft_last_written_index: 'rabbitmq_raft_last_written_index',
  rabbitmq_metadata_store_raft_snapshot_index: 'rabbitmq_raft_snapshot_index',
  rabbitmq_metadata_store_raft_commit_latency_seconds: 'rabbitmq_raft_commit_latency_seconds',
} as const;
