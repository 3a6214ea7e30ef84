import { channelMessageStats, channelMetrics } from '../collectors/channels/metrics.js';
import { connectionMetrics } from '../collectors/connections/metrics.js';
import { overviewMetrics } from '../collectors/overview/metrics.js';
import { PLUGIN_NAMED_ROWS } from '../collectors/plugin/collector.js';
import { queueMetrics } from '../collectors/queues/metrics.js';
import { defineMetrics, type MetricDef, type MetricSpec } from '../model/metric-def.js';

/**
 * A figure rabbitmq_prometheus serves on every node for that node alone, which the cluster target
 * has for the cluster as a whole: on a node target, the node's part, summed from a family the
 * snapshot has per node (`from`, by `node`), under the plugin's name and without `node` (the
 * target is the node). Where the snapshot has `from`, `replaces` (the cluster's whole) is left off
 * the cluster target beside the node targets, so a sum over every target of a cluster counts each
 * thing once.
 */
export interface NodeTotal {
  readonly def: MetricDef;
  readonly from: MetricDef;
  readonly replaces?: MetricDef;
  /** Only the lines of `from` whose `label` is `value` (a row fed by several of the plugin's families, one per value). */
  readonly where?: { readonly label: string; readonly value: string };
  /**
   * `from` is a per-queue family: the lines of queues on no node (their node unknown) are summed
   * on the cluster target beside the node targets, so that the sum over every target still counts them.
   */
  readonly perQueue?: true;
}

const ON_NODE = 'On a node target, for that node alone';

const counts = defineMetrics('nodes', {
  connections: { name: 'rabbitmq_connections', type: 'gauge', help: `${ON_NODE}: open client connections on the node, summed from rabbitmq_connections_by_state (the cluster target's is the cluster's, from /api/overview).` },
  channels: { name: 'rabbitmq_channels', type: 'gauge', help: `${ON_NODE}: channels open on the node's connections, summed from rabbitmq_connections_channels (the cluster target's is the cluster's, from /api/overview).` },
  queues: { name: 'rabbitmq_queues', type: 'gauge', help: `${ON_NODE}: queues on the node (a quorum or stream queue's leader), summed from rabbitmq_vhost_queues_per_node (the cluster target's is the cluster's, from /api/overview).` },
  consumers: { name: 'rabbitmq_consumers', type: 'gauge', help: `${ON_NODE}: consumers of the queues on the node (a quorum or stream queue's leader), summed from rabbitmq_queue_consumers, so of the queues with per-queue series only (the queue filters and max_queues leave some out); the cluster target's is the cluster's, from /api/overview, or beside node targets that of the queues whose node is unknown.` },
});

/** The cluster target's row of the same name as a plugin family, if it has one: the overview's cluster-wide figure, or a per-channel series. */
const sameNamed = (name: string): MetricDef | undefined =>
  [...Object.values(overviewMetrics), ...Object.values(channelMetrics), ...channelMessageStats.map((stat) => stat.counter)].find((def) => def.name === name);

/** The plugin collector's per-node rows under the plugin's own names: what its dashboards query per node. */
const pluginNamed: NodeTotal[] = PLUGIN_NAMED_ROWS.map(([family, row, where]) => {
  const spec: MetricSpec & { name: string } = {
    name: family,
    type: row.type,
    labels: row.labels.filter((label) => label !== 'node' && label !== where?.label),
    help: `${ON_NODE}: the plugin collector's ${row.name}${where ? ` of ${where.label} "${where.value}"` : ''}, under rabbitmq_prometheus' own name.`,
  };
  const replaces = sameNamed(family);
  return { def: defineMetrics('nodes', { row: spec }).row, from: row, ...(replaces ? { replaces } : {}), ...(where ? { where } : {}) };
});

export const NODE_TOTALS: readonly NodeTotal[] = [
  { def: counts.connections, from: connectionMetrics.byState, replaces: overviewMetrics.connections },
  { def: counts.channels, from: connectionMetrics.channels, replaces: overviewMetrics.channels },
  { def: counts.queues, from: queueMetrics.nodeQueues, replaces: overviewMetrics.queues },
  { def: counts.consumers, from: queueMetrics.consumers, replaces: overviewMetrics.consumers, perQueue: true },
  ...pluginNamed,
];
