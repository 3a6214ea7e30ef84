import { z } from 'zod';
import { nodeMetrics as M } from '../catalogue/nodes.js';
import { apiPath } from '../client/management-client.js';
import { renderLabels } from '../render/exposition.js';
import type { Collector, CollectContext } from './collector.js';
import { emitRecord, fieldTable } from './field-table.js';
import { majorVersion } from './optional-requests.js';

const MS = 0.001;
const MEMORY_VIA_QUERY = 'memory breakdown via ?memory=true';

const table = fieldTable([
  { field: 'running', metric: M.running },
  { field: 'being_drained', metric: M.beingDrained },
  { field: 'mem_used', metric: M.memUsed },
  { field: 'mem_limit', metric: M.memLimit },
  { field: 'mem_alarm', metric: M.memAlarm },
  { field: 'disk_free', metric: M.diskFree },
  { field: 'disk_free_limit', metric: M.diskFreeLimit },
  { field: 'disk_free_alarm', metric: M.diskAlarm },
  { field: 'fd_used', metric: M.fdUsed },
  { field: 'fd_total', metric: M.fdTotal },
  { field: 'sockets_used', metric: M.socketsUsed },
  { field: 'sockets_total', metric: M.socketsTotal },
  { field: 'proc_used', metric: M.procUsed },
  { field: 'proc_total', metric: M.procTotal },
  { field: 'run_queue', metric: M.runQueue },
  { field: 'processors', metric: M.processors },
  { field: 'uptime', metric: M.uptime, scale: MS },
  { field: 'net_ticktime', metric: M.netTicktime },
  { field: 'gc_num', metric: M.gcRuns },
  { field: 'gc_bytes_reclaimed', metric: M.gcReclaimed },
  { field: 'context_switches', metric: M.contextSwitches },
  { field: 'io_read_count', metric: M.ioReadOps },
  { field: 'io_read_bytes', metric: M.ioReadBytes },
  { field: 'io_read_avg_time', metric: M.ioReadTime, scale: MS },
  { field: 'io_write_count', metric: M.ioWriteOps },
  { field: 'io_write_bytes', metric: M.ioWriteBytes },
  { field: 'io_write_avg_time', metric: M.ioWriteTime, scale: MS },
  { field: 'io_sync_count', metric: M.ioSyncOps },
  { field: 'io_sync_avg_time', metric: M.ioSyncTime, scale: MS },
  { field: 'io_seek_count', metric: M.ioSeekOps },
  { field: 'io_seek_avg_time', metric: M.ioSeekTime, scale: MS },
  { field: 'io_reopen_count', metric: M.ioReopenOps },
  { field: 'mnesia_disk_tx_count', metric: M.schemaDiskTx },
  { field: 'mnesia_ram_tx_count', metric: M.schemaRamTx },
  { field: 'msg_store_read_count', metric: M.msgStoreRead },
  { field: 'msg_store_write_count', metric: M.msgStoreWrite },
  { field: 'queue_index_read_count', metric: M.queueIndexRead },
  { field: 'queue_index_write_count', metric: M.queueIndexWrite },
  { field: 'connection_created', metric: M.connectionsOpened },
  { field: 'connection_closed', metric: M.connectionsClosed },
  { field: 'channel_created', metric: M.channelsOpened },
  { field: 'channel_closed', metric: M.channelsClosed },
  { field: 'queue_declared', metric: M.queuesDeclared },
  { field: 'queue_created', metric: M.queuesCreated },
  { field: 'queue_deleted', metric: M.queuesDeleted },
]);

/** Fields the table reads plus those handled by hand: the `columns=` of the request. */
const COLUMNS = [
  'name', 'type', 'running', 'mem_calculation_strategy', 'rates_mode', 'partitions', 'cluster_links',
  'metrics_gc_queue_length', 'ra_open_file_metrics',
  ...table.rows.flatMap((row) => [row.path.join('.'), ...(row.ratePath ? [`${row.path.join('.')}_details`] : [])]),
].join(',');

const options = z.strictObject({
  /** Serve the API's `_details.rate` values as gauges. */
  rates: z.boolean().default(true),
  /** One more request per running node for the memory breakdown. */
  memory_breakdown: z.boolean().default(true),
});

type Options = z.infer<typeof options>;
type NodeRecord = Record<string, unknown>;

export const nodesCollector: Collector<Options> = {
  name: 'nodes',
  description: 'GET /api/nodes (with columns=), and per running node its memory breakdown from /api/nodes/{node}/memory (on a 3.x broker without that path, /api/nodes/{node}?memory=true).',
  defaultEnabled: true,
  defaultIntervalMultiplier: 1,
  optionsSchema: options,
  metrics: [
    M.info, M.partitions, M.clusterLinks, M.clusterLinkSent, M.clusterLinkReceived,
    M.metricsGcQueue, M.raOpenFiles, M.memoryArea, M.memoryTotal, ...table.metrics,
  ],
  async collect(ctx) {
    const nodes = await ctx.api.get<NodeRecord[]>('/api/nodes', { columns: COLUMNS });
    if (!Array.isArray(nodes)) throw new Error('/api/nodes did not answer a JSON array');
    const { sink } = ctx;
    const seen = new Set<string>();
    const running: string[] = [];
    // From 4.0 the socket limit is gone, yet /api/nodes still says sockets_used and sockets_total
    // 0 (recorded on 4.0.5 and 4.3.6): no series rather than a limit of 0 sockets.
    const withoutSockets = majorVersion(ctx) >= 4;
    for (const node of nodes) {
      const name = typeof node?.name === 'string' ? node.name : undefined;
      if (!name || seen.has(name)) {
        sink.drop(name ? 'duplicate' : 'no_name');
        continue;
      }
      seen.add(name);
      if (node.running === true) running.push(name);
      const labels = renderLabels(['node'], [name]);
      sink.add(M.info, [name, str(node.type), str(node.mem_calculation_strategy), str(node.rates_mode)], 1);
      emitRecord(sink, table, withoutSockets ? { ...node, sockets_used: undefined, sockets_used_details: undefined, sockets_total: undefined } : node, labels, { rates: ctx.options.rates });
      // A stopped node's record carries only name, type and running: no zeros for what is unknown.
      if (Array.isArray(node.partitions)) sink.addRendered(M.partitions, labels, node.partitions.length);
      if (Array.isArray(node.cluster_links)) emitClusterLinks(ctx, name, node.cluster_links);
      emitMap(ctx, M.metricsGcQueue, name, node.metrics_gc_queue_length);
      emitMap(ctx, M.raOpenFiles, name, node.ra_open_file_metrics);
    }
    if (ctx.options.memory_breakdown) {
      await Promise.all(running.map((name) => collectMemory(ctx, name)));
    }
  },
};

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function emitMap(ctx: CollectContext<Options>, metric: typeof M.metricsGcQueue, node: string, map: unknown): void {
  if (map === null || typeof map !== 'object' || Array.isArray(map)) return;
  for (const [key, value] of Object.entries(map)) ctx.sink.add(metric, [node, key], value);
}

interface ClusterLink {
  name?: unknown;
  send_bytes?: unknown;
  recv_bytes?: unknown;
}

function emitClusterLinks(ctx: CollectContext<Options>, node: string, links: ClusterLink[]): void {
  let peers = 0;
  for (const link of links) {
    const peer = str(link?.name);
    // rabbitmqctl and friends appear as short-lived peers named rabbitmqcli-<pid>-<node>.
    if (!peer || peer.startsWith('rabbitmqcli')) continue;
    peers++;
    ctx.sink.add(M.clusterLinkSent, [node, peer], link.send_bytes);
    ctx.sink.add(M.clusterLinkReceived, [node, peer], link.recv_bytes);
  }
  ctx.sink.add(M.clusterLinks, [node], peers);
}

/**
 * The breakdown from /api/nodes/{node}/memory: on 3.10.8 it cost the broker 13-23 ms against
 * 38-92 ms for /api/nodes/{node}?memory=true (same numbers). Before 3.13 a broker without the
 * /memory path is asked with ?memory=true instead, remembered once that path is seen to work.
 */
async function collectMemory(ctx: CollectContext<Options>, node: string): Promise<void> {
  const viaQuery = () => ctx.api.getOptional<{ memory?: unknown }>(apiPath('nodes', node), { memory: true, columns: 'memory' });
  let answer: { memory?: unknown } | undefined;
  if (ctx.memory.get(MEMORY_VIA_QUERY) === true) {
    answer = await viaQuery();
  } else {
    answer = await ctx.api.getOptional<{ memory?: unknown }>(`${apiPath('nodes', node)}/memory`);
    if (answer === undefined && ctx.broker.variant === 'A') {
      answer = await viaQuery();
      // Both 404: the node went away. Only the query path answering proves /memory is absent.
      if (answer !== undefined) ctx.memory.set(MEMORY_VIA_QUERY, true);
    }
  }
  const memory = answer?.memory;
  // The node stopped between the two requests (404), or statistics are off: nothing to add.
  if (memory === null || typeof memory !== 'object') return;
  for (const [area, value] of Object.entries(memory as Record<string, unknown>)) {
    if (area === 'total' && value !== null && typeof value === 'object') {
      for (const [measure, bytes] of Object.entries(value)) ctx.sink.add(M.memoryTotal, [node, measure], bytes);
    } else if (area !== 'strategy') {
      ctx.sink.add(M.memoryArea, [node, area], value);
    }
  }
}
