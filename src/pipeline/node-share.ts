import { nodeMetrics } from '../collectors/nodes/metrics.js';
import { defineMetrics } from '../model/metric-def.js';
import { deflateLines } from '../model/deflated-lines.js';
import { type BodyChunk, chunkText, escapeLabelValue, type FamilyHeader, renderLabels, type RenderedFamily } from '../model/text-format.js';
import { Exposition } from './exposition.js';

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
});

/** The label a series belongs to a node by. */
const NODE_LABEL = 'node';

/**
 * A node's share of a target's snapshot, served as that node's own scrape target (the plugin is
 * scraped once per node): every series of the collectors whose `node` label is the node, its
 * identity and its versions; no series of the exporter's own, none of the cluster's as a whole.
 * Made from the snapshot already rendered, so N node targets ask the broker nothing more than the
 * cluster target; each collector part is filtered once per node and kept while that part is served.
 */
export class NodeShares {
  private readonly shares = new WeakMap<Exposition, Map<string, Exposition>>();
  private readonly filtered = new WeakMap<readonly RenderedFamily[], Map<string, readonly RenderedFamily[]>>();

  /** The nodes of a snapshot's collector parts: those rabbitmq_node_info lists. */
  nodes(collectorParts: readonly (readonly RenderedFamily[])[]): string[] {
    const info = collectorParts.flat().find((family) => family.header === nodeMetrics.info);
    return info ? [...nodeValues(info)] : [];
  }

  /** The node's share; undefined when the snapshot does not list the node. */
  share(exposition: Exposition, collectorParts: readonly (readonly RenderedFamily[])[], node: string, cluster: string): Exposition | undefined {
    let byNode = this.shares.get(exposition);
    const made = byNode?.get(node);
    if (made) return made;
    if (!this.nodes(collectorParts).includes(node)) return undefined;
    const parts = collectorParts.map((part) => this.filteredPart(part, node));
    const share = new Exposition([identityPart(cluster, node), ...parts], exposition.validUntil, exposition.builtAt);
    if (!byNode) {
      byNode = new Map();
      this.shares.set(exposition, byNode);
    }
    byNode.set(node, share);
    return share;
  }

  private filteredPart(part: readonly RenderedFamily[], node: string): readonly RenderedFamily[] {
    let byNode = this.filtered.get(part);
    let kept = byNode?.get(node);
    if (kept) return kept;
    const marker = Buffer.from(`${NODE_LABEL}="${escapeLabelValue(node)}"`);
    const out: RenderedFamily[] = [];
    for (const family of part) {
      if (!hasNodeLabel(family.header)) continue;
      const lines = linesOf(family, marker);
      if (lines.length === 0) continue;
      out.push({ header: family.header, chunks: [keptChunk(Buffer.concat(lines))], samples: lines.length });
      if (family.header === nodeMetrics.build) out.push(renamed(nodeTargetMetrics.build, family.header.name, lines));
    }
    kept = out;
    if (!byNode) {
      byNode = new Map();
      this.filtered.set(part, byNode);
    }
    byNode.set(node, kept);
    return kept;
  }
}

/** Above this, a node's lines are kept deflated, as the sink keeps a queue family's (a node's share of 100k queues' rabbitmq_queue_info is megabytes). */
const DEFLATE_FROM_BYTES = 64 * 1024;

function keptChunk(text: Buffer): BodyChunk {
  return text.length < DEFLATE_FROM_BYTES ? text : deflateLines(text);
}

function hasNodeLabel(header: FamilyHeader): boolean {
  const labels = (header as { labels?: readonly string[] }).labels;
  return labels?.includes(NODE_LABEL) === true;
}

/** A family's lines whose label set holds `marker` (`node="…"`) as a label of its own, each with its newline. */
function linesOf(family: RenderedFamily, marker: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  for (const chunk of family.chunks) {
    const text = chunkText(chunk);
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf(10, start);
      end = end === -1 ? text.length : end + 1;
      const line = text.subarray(start, end);
      if (holdsLabel(line, marker)) lines.push(Buffer.from(line));
      start = end;
    }
  }
  return lines;
}

/** Quotes inside values are escaped, so `node="x"` after `{` or `,` can only be the label itself. */
function holdsLabel(line: Buffer, marker: Buffer): boolean {
  let at = line.indexOf(marker);
  while (at !== -1) {
    const before = line[at - 1];
    if (before === 0x7b || before === 0x2c) return true;
    at = line.indexOf(marker, at + 1);
  }
  return false;
}

/** The values of the node label on a family's lines, in order. */
function* nodeValues(family: RenderedFamily): Generator<string> {
  const opening = `{${NODE_LABEL}="`;
  for (const chunk of family.chunks) {
    for (const line of chunkText(chunk).toString('utf8').split('\n')) {
      const at = line.indexOf(opening);
      if (at === -1) continue;
      yield unescapeValue(line, at + opening.length);
    }
  }
}

function unescapeValue(line: string, from: number): string {
  let value = '';
  for (let i = from; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"') return value;
    if (c === '\\') {
      const next = line[++i];
      value += next === 'n' ? '\n' : (next ?? '');
    } else value += c;
  }
  return value;
}

function identityPart(cluster: string, node: string): readonly RenderedFamily[] {
  const def = nodeTargetMetrics.identity;
  return [{ header: def, chunks: [Buffer.from(`${def.name}${renderLabels(def.labels, [cluster, node])} 1\n`)], samples: 1 }];
}

/** The same lines under another family's name (the labels are the same). */
function renamed(header: FamilyHeader, from: string, lines: readonly Buffer[]): RenderedFamily {
  const chunks = lines.map((line) => Buffer.concat([Buffer.from(header.name), line.subarray(from.length)]));
  return { header, chunks: [Buffer.concat(chunks)], samples: lines.length };
}
