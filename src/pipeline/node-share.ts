import { nodeMetrics } from '../collectors/nodes/metrics.js';
import { overviewMetrics } from '../collectors/overview/metrics.js';
import { queueMetrics } from '../collectors/queues/metrics.js';
import { defineMetrics, type MetricDef } from '../model/metric-def.js';
import { type FamilyHeader, familyFromLines, familyLines, renderLabels, type RenderedFamily } from '../exposition/text-format.js';
import { Turns } from '../broker/turns.js';
import { Exposition } from '../exposition/exposition.js';
import { NODE_TOTALS, type NodeTotal } from './node-totals.js';

/**
 * The two families a node target adds to its share: what rabbitmq_prometheus serves on every
 * node, and what dashboards written for it join on (`on(instance, job) group_left(rabbitmq_node)`).
 */
export const nodeTargetMetrics = defineMetrics('nodes', {
  identity: {
    name: 'rabbitmq_identity_info',
    type: 'gauge',
    labels: ['rabbitmq_cluster', 'rabbitmq_node'],
    help: 'On a node target: the cluster and the node this target is; value 1 (the cluster target\'s has rabbitmq_cluster only).',
  },
  build: {
    name: 'rabbitmq_build_info',
    type: 'gauge',
    labels: ['node', 'rabbitmq_version', 'erlang_version', 'erlang_full_version', 'crypto_lib_version'],
    help: 'On a node target: the node\'s versions, as rabbitmq_node_build_info; value 1 (the cluster target\'s is the versions /api/overview reports).',
  },
  detailedQueueMessages: {
    name: 'rabbitmq_detailed_queue_messages',
    type: 'gauge',
    labels: ['vhost', 'queue'],
    help: 'On a node target: rabbitmq_queue_messages of the node\'s queues, under the name of rabbitmq_prometheus\' /metrics/detailed (family queue_coarse_metrics), which the cluster operator\'s per-queue alerts query.',
  },
  detailedQueueConsumers: {
    name: 'rabbitmq_detailed_queue_consumers',
    type: 'gauge',
    labels: ['vhost', 'queue'],
    help: 'On a node target: rabbitmq_queue_consumers of the node\'s queues, under the name of rabbitmq_prometheus\' /metrics/detailed (family queue_consumer_count).',
  },
});

/**
 * Families a node target serves a second time under another name, the lines otherwise the same:
 * each node's versions as the plugin names them, and the per-queue figures dashboards and alerts
 * written for the plugin's /metrics/detailed query.
 */
const ALSO_NAMED = new Map<FamilyHeader, MetricDef>([
  [nodeMetrics.build, nodeTargetMetrics.build],
  [queueMetrics.messages, nodeTargetMetrics.detailedQueueMessages],
  [queueMetrics.consumers, nodeTargetMetrics.detailedQueueConsumers],
]);

/** Every family a node target adds to the collectors' own: its identity and versions, and the node's totals. */
export const NODE_TARGET_FAMILIES: readonly MetricDef[] = [...Object.values(nodeTargetMetrics), ...NODE_TOTALS.map((total) => total.def)];

/** The exporter's own families' names begin so: never on a node's target. */
const OWN_PREFIX = 'rabbitmq_exporter_';

/** The label a series belongs to a node by. */
const NODE_LABEL = 'node';

/** A queue's label set begins so (`{vhost="…",queue="…"`): its series go where rabbitmq_queue_info's node says. */
const QUEUE_LABELS = ['vhost', 'queue'] as const;

/** Where each queue's series go: a queue's `vhost="…",queue="…"` → its node (the leader's, for a replicated one). */
type QueueNodes = ReadonlyMap<string, string>;

/** Lines of each family, by node; under REST those on no node's target. */
type Split = Map<string | typeof REST, RenderedFamily[]>;

/** The share of a part that is on no node's target: the cluster's as a whole (the cluster target serves it). */
const REST = Symbol('rest');

/**
 * A node's share of a target's snapshot, served as that node's own scrape target (the plugin is
 * scraped once per node): every series of the collectors whose `node` label is the node, every
 * series of the queues rabbitmq_queue_info places on it, its identity and its versions; no series
 * of the exporter's own, none of the cluster's as a whole. Made from the snapshot already
 * rendered, so N node targets ask the broker nothing more than the cluster target; each collector
 * part is split among the nodes once, and the split kept while that part is served. What is on no
 * node's target is the rest: scraped beside the node targets, the cluster target serves only that,
 * so no series is scraped twice.
 */
export class NodeShares {
  // Promises, kept from the first ask: scrapes of several nodes at once share one split.
  private readonly shares = new WeakMap<Exposition, Map<string | typeof REST, Promise<Exposition>>>();
  private readonly splits = new WeakMap<readonly RenderedFamily[], { queueNodes: QueueNodes; byNode: Promise<Split> }>();
  private readonly queueNodesOf = new WeakMap<RenderedFamily, Promise<QueueNodes>>();

  /** The nodes of a snapshot's collector parts: those rabbitmq_node_info lists. */
  nodes(collectorParts: readonly (readonly RenderedFamily[])[]): string[] {
    const info = findFamily(collectorParts, nodeMetrics.info);
    return info ? familyLines(info).map((line) => labelValue(line, NODE_LABEL) ?? '') : [];
  }

  /** The node's share; undefined when the snapshot does not list the node. */
  async share(exposition: Exposition, collectorParts: readonly (readonly RenderedFamily[])[], node: string, cluster: string): Promise<Exposition | undefined> {
    const made = this.shares.get(exposition)?.get(node);
    if (made) return made;
    if (!this.nodes(collectorParts).includes(node)) return undefined;
    return this.made(exposition, collectorParts, node, identityPart(cluster, node));
  }

  /** What of the snapshot no node target serves, with the exporter's own part: the cluster target's share beside node targets. */
  rest(exposition: Exposition, ownPart: readonly RenderedFamily[], collectorParts: readonly (readonly RenderedFamily[])[]): Promise<Exposition> {
    return this.shares.get(exposition)?.get(REST) ?? this.made(exposition, collectorParts, REST, ownPart);
  }

  /** The exposition of `first`, then each collector part's lines for `key`; kept with the snapshot it is made of. */
  private made(exposition: Exposition, collectorParts: readonly (readonly RenderedFamily[])[], key: string | typeof REST, first: readonly RenderedFamily[]): Promise<Exposition> {
    const byKey = this.shares.get(exposition) ?? new Map<string | typeof REST, Promise<Exposition>>();
    this.shares.set(exposition, byKey);
    const share = this.make(exposition, collectorParts, key, first);
    byKey.set(key, share);
    // A failed split is not kept: the next scrape tries again.
    share.catch(() => byKey.delete(key));
    return share;
  }

  private async make(exposition: Exposition, collectorParts: readonly (readonly RenderedFamily[])[], key: string | typeof REST, first: readonly RenderedFamily[]): Promise<Exposition> {
    const queueNodes = await this.queueNodes(collectorParts);
    const parts: (readonly RenderedFamily[])[] = [];
    for (const part of collectorParts) parts.push((await this.split(part, queueNodes)).get(key) ?? []);
    const totals = NODE_TOTALS.filter((total) => collectorParts.some((part) => part.some((family) => family.header === total.from)));
    let shareParts: (readonly RenderedFamily[])[];
    if (key === REST) {
      const replaced = new Set(totals.flatMap((total) => (total.replaces ? [total.replaces] : [])));
      const unplaced = totals.filter((total) => total.perQueue).flatMap((total) => nodeTotal(total, parts, false));
      shareParts = [first, unplaced, ...parts.map((families) => families.filter((family) => !replaced.has(family.header as MetricDef)))];
    } else {
      shareParts = [first, totals.flatMap((total) => nodeTotal(total, parts)), ...parts];
    }
    return new Exposition(shareParts, exposition.validUntil, exposition.builtAt);
  }

  private queueNodes(collectorParts: readonly (readonly RenderedFamily[])[]): Promise<QueueNodes> {
    const info = findFamily(collectorParts, queueMetrics.info);
    if (!info) return Promise.resolve(new Map());
    let made = this.queueNodesOf.get(info);
    if (!made) {
      made = (async () => {
        const map = new Map<string, string>();
        const turns = new Turns();
        for (const line of familyLines(info)) {
          if (turns.due()) await turns.wait();
          const key = queueKey(line);
          const node = labelValue(line, NODE_LABEL);
          if (key !== undefined && node) map.set(key, node);
        }
        return map as QueueNodes;
      })();
      this.queueNodesOf.set(info, made);
    }
    return made;
  }

  /** A part's families cut by node, in one pass over its lines, with turns of the event loop between (100,000 queues: 600,000 lines). */
  private split(part: readonly RenderedFamily[], queueNodes: QueueNodes): Promise<Split> {
    const kept = this.splits.get(part);
    if (kept && kept.queueNodes === queueNodes) return kept.byNode;
    const byNode = splitByNode(part, queueNodes);
    this.splits.set(part, { queueNodes, byNode });
    return byNode;
  }
}

async function splitByNode(part: readonly RenderedFamily[], queueNodes: QueueNodes): Promise<Split> {
  const byNode: Split = new Map();
  const turns = new Turns();
  for (const family of part) {
    const labels = (family.header as { labels?: readonly string[] }).labels ?? [];
    // The exporter's own series about a node (how its plugin answered) are not the node's.
    const byLabel = labels.includes(NODE_LABEL) && !family.header.name.startsWith(OWN_PREFIX);
    const byQueue = !byLabel && QUEUE_LABELS.every((label, i) => labels[i] === label);
    if (!byLabel && !byQueue) {
      // Each node target has its own build_info: the cluster's as well would count one node more.
      if (family.header !== overviewMetrics.build) add(byNode, REST, family);
      continue;
    }
    const lines = new Map<string | typeof REST, string[]>();
    for (const line of familyLines(family)) {
      if (turns.due()) await turns.wait();
      const node = (byLabel ? labelValue(line, NODE_LABEL) : queueNodes.get(queueKey(line) ?? '')) || REST;
      const own = lines.get(node);
      if (own) own.push(line);
      else lines.set(node, [line]);
    }
    for (const [node, own] of lines) {
      add(byNode, node, familyFromLines(family.header, own));
      const alias = node === REST ? undefined : ALSO_NAMED.get(family.header);
      if (alias) add(byNode, node, familyFromLines(alias, own.map((line) => alias.name + line.slice(family.header.name.length))));
    }
  }
  return byNode;
}

/**
 * A node's part of a figure: the node's lines of `total.from` summed by the labels `total.def`
 * keeps; one series of 0 for a figure without labels when the node has none of its lines (no
 * connections on the node), as the plugin serves it (`zeroWhenNone`; not for the cluster's rest).
 */
function nodeTotal(total: NodeTotal, nodeParts: readonly (readonly RenderedFamily[])[], zeroWhenNone = true): RenderedFamily[] {
  // A histogram's lines are told apart by their series (`_bucket`, `_count`, `_sum`) and a bucket's by `le` too.
  const histogram = total.def.type === 'histogram';
  const sums = new Map<string, number>();
  for (const part of nodeParts) {
    for (const family of part) {
      if (family.header !== total.from) continue;
      for (const line of familyLines(family)) {
        if (total.where && labelValue(line, total.where.label) !== total.where.value) continue;
        const series = histogram ? line.slice(total.from.name.length, line.search(/[{ ]/)) : '';
        const names = series === '_bucket' ? [...total.def.labels, 'le'] : total.def.labels;
        const labels = renderLabels(names, names.map((label) => labelValue(line, label) ?? ''));
        const key = `${series}${labels}`;
        sums.set(key, (sums.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
      }
    }
  }
  if (sums.size === 0 && total.def.labels.length === 0 && zeroWhenNone && !histogram) sums.set('', 0);
  if (sums.size === 0) return [];
  const lines = [...sums].map(([key, value]) => `${total.def.name}${key} ${value}`);
  return [{ header: total.def, chunks: [Buffer.from(`${lines.join('\n')}\n`)], samples: lines.length }];
}

function add(split: Split, node: string | typeof REST, family: RenderedFamily): void {
  const families = split.get(node);
  if (families) families.push(family);
  else split.set(node, [family]);
}

function findFamily(parts: readonly (readonly RenderedFamily[])[], header: FamilyHeader): RenderedFamily | undefined {
  for (const part of parts) for (const family of part) if (family.header === header) return family;
  return undefined;
}

/**
 * The value of label `name` on a rendered line, unescaped; undefined when it has none. Quotes
 * inside values are escaped, so `name="` after `{` or `,` can only be the label itself.
 */
export function labelValue(line: string, name: string): string | undefined {
  const marker = `${name}="`;
  let at = line.indexOf(marker);
  while (at !== -1) {
    const before = line[at - 1];
    if (before === '{' || before === ',') return valueFrom(line, at + marker.length).value;
    at = line.indexOf(marker, at + 1);
  }
  return undefined;
}

/** The queue's identity on a line whose labels begin with vhost and queue: `vhost="…",queue="…"` as rendered. */
function queueKey(line: string): string | undefined {
  const open = line.indexOf('{');
  if (open === -1 || !line.startsWith(`${QUEUE_LABELS[0]}="`, open + 1)) return undefined;
  const vhost = valueFrom(line, open + QUEUE_LABELS[0].length + 3);
  if (!line.startsWith(`,${QUEUE_LABELS[1]}="`, vhost.end + 1)) return undefined;
  const queue = valueFrom(line, vhost.end + QUEUE_LABELS[1].length + 4);
  return line.slice(open + 1, queue.end + 1);
}

/** A quoted value starting at `from`, unescaped, and the index of its closing quote. */
function valueFrom(line: string, from: number): { value: string; end: number } {
  let value = '';
  for (let i = from; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"') return { value, end: i };
    if (c === '\\') {
      const next = line[++i];
      value += next === 'n' ? '\n' : (next ?? '');
    } else value += c;
  }
  return { value, end: line.length };
}

function identityPart(cluster: string, node: string): readonly RenderedFamily[] {
  const def = nodeTargetMetrics.identity;
  return [{ header: def, chunks: [Buffer.from(`${def.name}${renderLabels(def.labels, [cluster, node])} 1\n`)], samples: 1 }];
}
