import { defineMetrics } from '../../model/metric-def.js';

const c = 'counter' as const;
const g = 'gauge' as const;
const N = ['node'] as const;
/** The API reports these in milliseconds. */
const MS = 0.001;

/**
 * kbudde's memory module: one family per area of the breakdown (binary → rabbitmq_memory_binary_bytes).
 * Areas RabbitMQ added later (quorum_ets, stream_queue_procs, ...) have no kbudde name and are left
 * out; so is connection_readers, which kbudde declared but never served (docs/kbudde-migration.md).
 */
const KBUDDE_MEMORY_AREAS = [
  'allocated_unused', 'atom', 'binary', 'code', 'connection_channels', 'connection_other', 'connection_writers', 'metrics', 'mgmt_db', 'mnesia', 'msg_index', 'other_ets', 'other_proc', 'other_system', 'plugins', 'queue_procs', 'queue_slave_procs', 'reserved_unallocated',
] as const;
const kbuddeMemory = (label: string, prefix: string, values: readonly string[]) => ({
  kbudde: { labels: ['cluster', 'node', 'self'], familyPerValue: { label, names: Object.fromEntries(values.map((v) => [v, `rabbitmq_memory_${prefix}${v}_bytes`])) } },
});

export const nodeMetrics = defineMetrics('nodes', {
  info: { name: 'rabbitmq_node_info', type: g, labels: ['node', 'type', 'mem_calculation_strategy', 'rates_mode'], help: 'A cluster node and its settings; value 1.' },
  build: {
    name: 'rabbitmq_node_build_info',
    type: g,
    labels: ['node', 'rabbitmq_version', 'erlang_version', 'erlang_full_version', 'crypto_lib_version'],
    help: 'A node\'s versions; value 1. Each from the node\'s own record where the broker reports it (4.3 and later: all four; before: rabbitmq_version, from its rabbit application, while statistics are on), else for the node that answered /api/overview that answer\'s; empty when unknown.',
  },
  partitions: { name: 'rabbitmq_node_partitions', names: { kbudde: { name: 'rabbitmq_partitions', labels: ['cluster', 'node', 'self'] } }, type: g, labels: N, help: 'Nodes this node sees as partitioned from it; anything above 0 is a network partition.' },
  clusterLinks: { name: 'rabbitmq_node_cluster_links', type: g, labels: N, help: 'Inter-node links this node has open to other cluster nodes (CLI tool connections not counted).' },
  clusterLinkSent: { name: 'rabbitmq_node_cluster_link_sent_bytes_total', type: c, labels: ['node', 'peer'], help: 'Bytes sent by this node to a peer node over the inter-node link.' },
  clusterLinkReceived: { name: 'rabbitmq_node_cluster_link_received_bytes_total', type: c, labels: ['node', 'peer'], help: 'Bytes received by this node from a peer node over the inter-node link.' },
  metricsGcQueue: { name: 'rabbitmq_management_metrics_gc_queue_length', type: g, labels: ['node', 'table'], help: 'Deleted objects whose statistics wait to be garbage-collected, per table (metrics_gc_queue_length).' },
  raOpenFiles: { name: 'rabbitmq_raft_open_files', type: g, labels: ['node', 'process'], help: 'Files held open by the Raft (quorum queue) log processes (ra_open_file_metrics).' },
  memoryArea: { name: 'rabbitmq_node_memory_bytes', names: kbuddeMemory('area', '', KBUDDE_MEMORY_AREAS), type: g, labels: ['node', 'area'], help: 'Node memory by use (the management API\'s memory breakdown: binary, code, queue_procs, ...).' },
  memoryTotal: { name: 'rabbitmq_node_memory_total_bytes', names: kbuddeMemory('measure', 'total_', ['allocated', 'rss', 'erlang']), type: g, labels: ['node', 'measure'], help: 'Node memory totals of the breakdown: measure is erlang (allocated by the VM), allocated or rss.' },
  memoryBreakdownAge: { name: 'rabbitmq_node_memory_breakdown_age_seconds', type: g, unit: 'seconds', help: 'Age of the memory breakdowns served at the node collector\'s last poll: they are fetched every collectors.nodes.memory_breakdown_every polls and served unchanged in between (for the nodes running now); 0 when that poll fetched them.' },

  running: { source: { field: 'running' }, name: 'rabbitmq_node_running', names: { kbudde: { name: 'rabbitmq_running', labels: ['cluster', 'node', 'self'] } }, type: g, labels: N, help: '1 when the node is running, 0 when the cluster knows it but it is down.' },
  beingDrained: { source: { field: 'being_drained' }, name: 'rabbitmq_node_being_drained', type: g, labels: N, help: '1 while the node is in maintenance mode (being drained).' },
  memUsed: { source: { field: 'mem_used' }, name: 'rabbitmq_process_resident_memory_bytes', names: { kbudde: { name: 'rabbitmq_node_mem_used', labels: ['cluster', 'node', 'self'] } }, type: g, labels: N, rate: true, help: 'Memory used by the node as RabbitMQ measures it (mem_used).' },
  memLimit: { source: { field: 'mem_limit' }, name: 'rabbitmq_resident_memory_limit_bytes', names: { kbudde: { name: 'rabbitmq_node_mem_limit', labels: ['cluster', 'node', 'self'] } }, type: g, labels: N, help: 'Memory high watermark: above it publishers are blocked (mem_limit).' },
  memAlarm: { source: { field: 'mem_alarm' }, name: 'rabbitmq_alarms_memory_used_watermark', names: { kbudde: { name: 'rabbitmq_node_mem_alarm', labels: ['cluster', 'node', 'self'] } }, type: g, labels: N, help: '1 when the node has raised the memory alarm (mem_alarm; lags the health check by a few seconds).' },
  diskFree: { source: { field: 'disk_free' }, name: 'rabbitmq_disk_space_available_bytes', names: { kbudde: { name: 'rabbitmq_node_disk_free', labels: ['cluster', 'node', 'self'] } }, type: g, labels: N, rate: true, help: 'Free disk space on the node\'s data partition (disk_free).' },
  diskFreeLimit: { source: { field: 'disk_free_limit' }, name: 'rabbitmq_disk_space_available_limit_bytes', names: { kbudde: { name: 'rabbitmq_node_disk_free_limit', labels: ['cluster', 'node', 'self'] } }, type: g, labels: N, help: 'Free disk space below which the disk alarm is raised (disk_free_limit).' },
  diskAlarm: { source: { field: 'disk_free_alarm' }, name: 'rabbitmq_alarms_free_disk_space_watermark', names: { kbudde: { name: 'rabbitmq_node_disk_free_alarm', labels: ['cluster', 'node', 'self'] } }, type: g, labels: N, help: '1 when the node has raised the free disk space alarm (disk_free_alarm).' },
  fdUsed: { source: { field: 'fd_used' }, name: 'rabbitmq_process_open_fds', names: { kbudde: { name: 'rabbitmq_fd_used', labels: ['cluster', 'node', 'self'] } }, type: g, labels: N, rate: true, help: 'File descriptors open (fd_used).' },
  fdTotal: { source: { field: 'fd_total' }, name: 'rabbitmq_process_max_fds', names: { kbudde: { name: 'rabbitmq_fd_available', labels: ['cluster', 'node', 'self'] } }, type: g, labels: N, help: 'File descriptors available (fd_total).' },
  socketsUsed: { source: { field: 'sockets_used' }, name: 'rabbitmq_process_open_tcp_sockets', names: { kbudde: { name: 'rabbitmq_sockets_used', labels: ['cluster', 'node', 'self'] } }, type: g, labels: N, rate: true, help: 'TCP sockets open (sockets_used; not served from RabbitMQ 4.0, where the API says 0).' },
  socketsTotal: { source: { field: 'sockets_total' }, name: 'rabbitmq_process_max_tcp_sockets', names: { kbudde: { name: 'rabbitmq_sockets_available', labels: ['cluster', 'node', 'self'] } }, type: g, labels: N, help: 'TCP sockets available (sockets_total; not served from RabbitMQ 4.0, where the API says 0).' },
  procUsed: { source: { field: 'proc_used' }, name: 'rabbitmq_erlang_processes_used', type: g, labels: N, rate: true, help: 'Erlang processes running (proc_used).' },
  procTotal: { source: { field: 'proc_total' }, name: 'rabbitmq_erlang_processes_limit', type: g, labels: N, help: 'Erlang process limit (proc_total).' },
  runQueue: { source: { field: 'run_queue' }, name: 'rabbitmq_erlang_scheduler_run_queue', type: g, labels: N, help: 'Erlang processes waiting to run (run_queue).' },
  processors: { source: { field: 'processors' }, name: 'rabbitmq_node_processors', type: g, labels: N, help: 'Logical processors the Erlang VM sees (processors).' },
  uptime: { source: { field: 'uptime', scale: MS }, name: 'rabbitmq_erlang_uptime_seconds', names: { kbudde: { name: 'rabbitmq_uptime', labels: ['cluster', 'node', 'self'], scale: 1000 } }, type: g, labels: N, help: 'Time since the node\'s Erlang VM started (uptime).' },
  netTicktime: { source: { field: 'net_ticktime' }, name: 'rabbitmq_erlang_net_ticktime_seconds', type: g, labels: N, help: 'Inter-node heartbeat interval (net_ticktime).' },

  gcRuns: { source: { field: 'gc_num' }, name: 'rabbitmq_erlang_gc_runs_total', type: c, labels: N, rate: true, help: 'Erlang garbage collections (gc_num).' },
  gcReclaimed: { source: { field: 'gc_bytes_reclaimed' }, name: 'rabbitmq_erlang_gc_reclaimed_bytes_total', type: c, labels: N, rate: true, help: 'Memory reclaimed by Erlang garbage collection (gc_bytes_reclaimed).' },
  contextSwitches: { source: { field: 'context_switches' }, name: 'rabbitmq_erlang_scheduler_context_switches_total', type: c, labels: N, rate: true, help: 'Erlang scheduler context switches (context_switches).' },

  ioReadOps: { source: { field: 'io_read_count' }, name: 'rabbitmq_io_read_ops_total', type: c, labels: N, rate: true, help: 'Read operations by the persistence layer (io_read_count).' },
  ioReadBytes: { source: { field: 'io_read_bytes' }, name: 'rabbitmq_io_read_bytes_total', type: c, labels: N, rate: true, help: 'Bytes read by the persistence layer (io_read_bytes).' },
  ioReadTime: { source: { field: 'io_read_avg_time', scale: MS }, name: 'rabbitmq_io_read_average_time_seconds', type: g, labels: N, rate: true, help: 'Average time of a read operation over the last sampling window (io_read_avg_time).' },
  ioWriteOps: { source: { field: 'io_write_count' }, name: 'rabbitmq_io_write_ops_total', type: c, labels: N, rate: true, help: 'Write operations by the persistence layer (io_write_count).' },
  ioWriteBytes: { source: { field: 'io_write_bytes' }, name: 'rabbitmq_io_write_bytes_total', type: c, labels: N, rate: true, help: 'Bytes written by the persistence layer (io_write_bytes).' },
  ioWriteTime: { source: { field: 'io_write_avg_time', scale: MS }, name: 'rabbitmq_io_write_average_time_seconds', type: g, labels: N, rate: true, help: 'Average time of a write operation over the last sampling window (io_write_avg_time).' },
  ioSyncOps: { source: { field: 'io_sync_count' }, name: 'rabbitmq_io_sync_ops_total', type: c, labels: N, rate: true, help: 'fsync operations by the persistence layer (io_sync_count).' },
  ioSyncTime: { source: { field: 'io_sync_avg_time', scale: MS }, name: 'rabbitmq_io_sync_average_time_seconds', type: g, labels: N, rate: true, help: 'Average time of an fsync over the last sampling window (io_sync_avg_time).' },
  ioSeekOps: { source: { field: 'io_seek_count' }, name: 'rabbitmq_io_seek_ops_total', type: c, labels: N, rate: true, help: 'Seek operations by the persistence layer (io_seek_count).' },
  ioSeekTime: { source: { field: 'io_seek_avg_time', scale: MS }, name: 'rabbitmq_io_seek_average_time_seconds', type: g, labels: N, rate: true, help: 'Average time of a seek over the last sampling window (io_seek_avg_time).' },
  ioReopenOps: { source: { field: 'io_reopen_count' }, name: 'rabbitmq_io_reopen_ops_total', type: c, labels: N, rate: true, help: 'Files reopened by the persistence layer (io_reopen_count).' },
  schemaDiskTx: { source: { field: 'mnesia_disk_tx_count' }, name: 'rabbitmq_schema_db_disk_tx_total', type: c, labels: N, rate: true, help: 'Disk transactions of the schema database, Mnesia (mnesia_disk_tx_count).' },
  schemaRamTx: { source: { field: 'mnesia_ram_tx_count' }, name: 'rabbitmq_schema_db_ram_tx_total', type: c, labels: N, rate: true, help: 'RAM transactions of the schema database, Mnesia (mnesia_ram_tx_count).' },
  msgStoreRead: { source: { field: 'msg_store_read_count' }, name: 'rabbitmq_msg_store_read_total', type: c, labels: N, rate: true, help: 'Message store reads (msg_store_read_count).' },
  msgStoreWrite: { source: { field: 'msg_store_write_count' }, name: 'rabbitmq_msg_store_write_total', type: c, labels: N, rate: true, help: 'Message store writes (msg_store_write_count).' },
  queueIndexRead: { source: { field: 'queue_index_read_count' }, name: 'rabbitmq_queue_index_read_ops_total', type: c, labels: N, rate: true, help: 'Queue index reads (queue_index_read_count).' },
  queueIndexWrite: { source: { field: 'queue_index_write_count' }, name: 'rabbitmq_queue_index_write_ops_total', type: c, labels: N, rate: true, help: 'Queue index writes (queue_index_write_count).' },

  connectionsOpened: { source: { field: 'connection_created' }, name: 'rabbitmq_connections_opened_total', type: c, labels: N, rate: true, help: 'Connections opened on the node (connection_created).' },
  connectionsClosed: { source: { field: 'connection_closed' }, name: 'rabbitmq_connections_closed_total', type: c, labels: N, rate: true, help: 'Connections closed on the node (connection_closed).' },
  channelsOpened: { source: { field: 'channel_created' }, name: 'rabbitmq_channels_opened_total', type: c, labels: N, rate: true, help: 'Channels opened on the node (channel_created).' },
  channelsClosed: { source: { field: 'channel_closed' }, name: 'rabbitmq_channels_closed_total', type: c, labels: N, rate: true, help: 'Channels closed on the node (channel_closed).' },
  queuesDeclared: { source: { field: 'queue_declared' }, name: 'rabbitmq_queues_declared_total', type: c, labels: N, rate: true, help: 'Queue declarations on the node (queue_declared).' },
  queuesCreated: { source: { field: 'queue_created' }, name: 'rabbitmq_queues_created_total', type: c, labels: N, rate: true, help: 'Queues created on the node (queue_created).' },
  queuesDeleted: { source: { field: 'queue_deleted' }, name: 'rabbitmq_queues_deleted_total', type: c, labels: N, rate: true, help: 'Queues deleted on the node (queue_deleted).' },
});
