import { z } from 'zod';
import { nodeMetrics as M } from './metrics.js';
import { expectList } from '../../broker/expect-list.js';
import { apiPath, columnsParam } from '../../broker/api-path.js';
import { metricsOf } from '../../model/metric-def.js';
import type { BrokerInfo } from '../../broker/broker-info.js';
import type { Collector, CollectContext, RequestLimits } from '../kit/collector.js';
import { emitRecord, fieldsRead, fieldTableOf } from '../kit/field-table.js';
import { HeldPart, type HeldPartWriter } from '../kit/held-part.js';
import { stringLabel } from '../kit/label-text.js';
import { uniqueRecords } from '../kit/records.js';
import { majorVersion } from '../kit/optional-requests.js';
import { failureReason, PartFailures, partsCutOff, partTimeoutMs } from '../kit/optional-part.js';
import { renderLabels } from '../../exposition/sample-sink.js';

const MEMORY_VIA_QUERY = 'memory breakdown via ?memory=true';
/** The optional part's name in logs and rabbitmq_exporter_collector_part_failed. */
const MEMORY_BREAKDOWN = 'memory_breakdown';

const table = fieldTableOf(M);

/** A node's versions in its own record (4.3 and later). */
const VERSION_FIELDS = ['rabbitmq_version', 'erlang_version', 'erlang_full_version', 'crypto_lib_version'] as const;

/** Fields the table reads plus those handled by hand: the `columns=` of the request. */
const COLUMNS = columnsParam([
  'name', 'type', 'running', 'mem_calculation_strategy', 'rates_mode', 'partitions', 'cluster_links',
  'metrics_gc_queue_length', 'ra_open_file_metrics',
  ...VERSION_FIELDS, 'applications',
  ...fieldsRead(table, true),
]);

const options = z.strictObject({
  /** Serve the API's `_details.rate` values as gauges. */
  rates: z.boolean().default(true),
  /** One more request per running node for the memory breakdown. */
  memory_breakdown: z.boolean().default(true),
  /** Fetch the breakdowns every this many polls (one request per node each); held between. */
  memory_breakdown_every: z.number().int().min(1).default(4),
});

type Options = z.infer<typeof options>;
type NodeRecord = Record<string, unknown>;

export const nodesCollector: Collector<Options> = {
  name: 'nodes',
  description: 'GET /api/nodes (with columns=), and every memory_breakdown_every polls per running node its memory breakdown from /api/nodes/{node}/memory (on a 3.x broker without that path, /api/nodes/{node}?memory=true).',
  defaultEnabled: true,
  defaultIntervalMultiplier: 1,
  optionsSchema: options,
  metrics: metricsOf(M),
  async collect(ctx) {
    const nodes = expectList<NodeRecord>(await ctx.api.get('/api/nodes', { columns: COLUMNS }), '/api/nodes');
    const { sink } = ctx;
    const running: string[] = [];
    // From 4.0 the socket limit is gone, yet /api/nodes still says sockets_used and sockets_total
    // 0 (recorded on 4.0.5 and 4.3.6): no series rather than a limit of 0 sockets.
    const withoutSockets = majorVersion(ctx) >= 4;
    for (const node of uniqueRecords(nodes, (n) => stringLabel(n?.name) || undefined, sink)) {
      const name = node.name as string;
      if (node.running === true) running.push(name);
      const labels = renderLabels(['node'], [name]);
      sink.add(M.info, { node: name, type: stringLabel(node.type), mem_calculation_strategy: stringLabel(node.mem_calculation_strategy), rates_mode: stringLabel(node.rates_mode) }, 1);
      sink.add(M.build, nodeVersions(node, name, ctx.broker), 1);
      emitRecord(sink, table, withoutSockets ? { ...node, sockets_used: undefined, sockets_used_details: undefined, sockets_total: undefined } : node, labels, { rates: ctx.options.rates });
      // A stopped node's record carries only name, type and running: no zeros for what is unknown.
      if (Array.isArray(node.partitions)) sink.addRendered(M.partitions, labels, node.partitions.length);
      if (Array.isArray(node.cluster_links)) emitClusterLinks(ctx, name, node.cluster_links);
      emitMap(ctx, M.metricsGcQueue, name, node.metrics_gc_queue_length);
      emitMap(ctx, M.raOpenFiles, name, node.ra_open_file_metrics);
    }
    if (ctx.options.memory_breakdown) {
      const held = HeldPart.in(ctx.carryOver, 'memory breakdown');
      const failures = PartFailures.in(ctx.carryOver);
      // A node stopped since: its breakdown is not served. One started since has none until the next fetch.
      const replay = () => held.replay(sink, (node) => running.includes(node));
      if (held.due(ctx.options.memory_breakdown_every)) {
        // Optional: a breakdown that fails or is too slow leaves the rest of the poll served and
        // the breakdowns held as last fetched (their age grows), and is fetched again next poll.
        const cutOff = partsCutOff(ctx);
        try {
          const answers = await Promise.all(running.map((name) => fetchMemory(ctx, name, { signal: cutOff, timeoutMs: partTimeoutMs(ctx) })));
          const writer = held.recorder(sink);
          answers.forEach((memory, i) => {
            writeMemory(writer, running[i]!, memory);
          });
          failures.succeeded(ctx, MEMORY_BREAKDOWN);
        } catch (error) {
          if (ctx.signal.aborted) throw error;
          failures.failed(ctx, MEMORY_BREAKDOWN, failureReason(error, cutOff), error, 'the breakdowns of its last fetch are served (rabbitmq_node_memory_breakdown_age_seconds)');
          replay();
        }
      } else {
        replay();
      }
      // The age served is measured on the monotonic clock, as the bindings' (exchanges/collector.ts).
      const now = performance.now();
      held.commit(now);
      const age = held.ageSeconds(now);
      if (age !== undefined) sink.add(M.memoryBreakdownAge, [], age);
      failures.report(ctx, nodesCollector.name);
    }
  },
};

/**
 * A node's versions: its record's; before 4.3 its rabbit application's version (listed while
 * statistics are on); for the node that answered /api/overview, what that answer says of the rest.
 */
function nodeVersions(node: NodeRecord, name: string, broker: BrokerInfo): Record<string, string> {
  const answered = name === broker.node;
  const rabbit = Array.isArray(node.applications) ? (node.applications as { name?: unknown; version?: unknown }[]).find((app) => app?.name === 'rabbit') : undefined;
  return {
    node: name,
    rabbitmq_version: stringLabel(node.rabbitmq_version) || stringLabel(rabbit?.version) || (answered ? broker.rabbitmqVersion : ''),
    erlang_version: stringLabel(node.erlang_version) || (answered ? broker.erlangVersion : ''),
    erlang_full_version: stringLabel(node.erlang_full_version),
    crypto_lib_version: stringLabel(node.crypto_lib_version),
  };
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
    const peer = stringLabel(link?.name);
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
async function fetchMemory(ctx: CollectContext<Options>, node: string, limits: RequestLimits): Promise<unknown> {
  const viaQuery = () => ctx.api.getOptional<{ memory?: unknown }>(apiPath('nodes', node), { memory: true, columns: 'memory' }, limits);
  let answer: { memory?: unknown } | undefined;
  if (ctx.carryOver.get(MEMORY_VIA_QUERY) === true) {
    answer = await viaQuery();
  } else {
    answer = await ctx.api.getOptional<{ memory?: unknown }>(`${apiPath('nodes', node)}/memory`, undefined, limits);
    if (answer === undefined && ctx.broker.variant === 'A') {
      answer = await viaQuery();
      // Both 404: the node went away. Only the query path answering proves /memory is absent.
      if (answer !== undefined) ctx.carryOver.set(MEMORY_VIA_QUERY, true);
    }
  }
  return answer?.memory;
}

function writeMemory(writer: HeldPartWriter, node: string, memory: unknown): void {
  // The node stopped between the two requests (404), or statistics are off: nothing to add.
  if (memory === null || typeof memory !== 'object') return;
  for (const [area, value] of Object.entries(memory as Record<string, unknown>)) {
    if (area === 'total' && value !== null && typeof value === 'object') {
      for (const [measure, bytes] of Object.entries(value)) writer.add(M.memoryTotal, [node, measure], bytes, node);
    } else if (area !== 'strategy') {
      writer.add(M.memoryArea, [node, area], value, node);
    }
  }
}
