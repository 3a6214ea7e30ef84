import { quorumMetrics as M } from './quorum-metrics.js';
import type { SampleSink } from '../../exposition/sample-sink.js';
import type { CollectContext } from '../kit/collector.js';
import { stringLabel } from '../kit/label-text.js';
import { logOnce } from '../kit/log-once.js';
import type { QueueOptions, QueueRecord } from './options.js';

/** The columns the placement reads from each queue record. */
export const QUORUM_COLUMNS = ['leader', 'members', 'online', 'arguments'];

interface VhostPlacement {
  leaders: Map<string, number>;
  replicas: Map<string, number>;
  withoutLeader: number;
  belowQuorum: number;
  /** Each queue's member count and its own target (undefined: the cluster default). */
  sizes: { members: number; target: number | undefined }[];
}

/** Fewest members online for a quorum queue of `members` to have a majority. */
export function quorumOf(members: number): number {
  return Math.floor(members / 2) + 1;
}

const names = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined);

/**
 * Signal 5 of issue 26: per vhost, where the quorum queues' leaders and replicas are, how many
 * lack a majority online and how many have fewer members than their target. Fed every queue of
 * the poll's list (queue records without members, such as those of a list that lacks them, are
 * left out); emitted once the list is read.
 */
export class QuorumPlacement {
  private readonly vhosts = new Map<string, VhostPlacement>();

  add(queue: QueueRecord): void {
    if (queue.type !== 'quorum') return;
    const members = names(queue.members);
    if (!members) return;
    const online = names(queue.online) ?? [];
    const vhost = stringLabel(queue.vhost);
    let v = this.vhosts.get(vhost);
    if (!v) {
      v = { leaders: new Map(), replicas: new Map(), withoutLeader: 0, belowQuorum: 0, sizes: [] };
      this.vhosts.set(vhost, v);
    }
    for (const node of members) v.replicas.set(node, (v.replicas.get(node) ?? 0) + 1);
    const leader = stringLabel(queue.leader);
    if (leader === '') v.withoutLeader++;
    else v.leaders.set(leader, (v.leaders.get(leader) ?? 0) + 1);
    if (online.length < quorumOf(members.length)) v.belowQuorum++;
    v.sizes.push({ members: members.length, target: initialGroupSize(queue.arguments) });
  }

  /** `defaultTarget`: the cluster's quorum_cluster_size; `clusterNodes`: nodes in the cluster, undefined when unknown (then no below-target counts). */
  emit(sink: SampleSink, defaultTarget: number, clusterNodes: number | undefined): void {
    for (const [vhost, v] of this.vhosts) {
      const nodes = new Set([...v.replicas.keys(), ...v.leaders.keys()]);
      for (const node of [...nodes].sort()) {
        sink.add(M.leaders, [vhost, node], v.leaders.get(node) ?? 0);
        sink.add(M.replicas, [vhost, node], v.replicas.get(node) ?? 0);
      }
      sink.add(M.withoutLeader, [vhost], v.withoutLeader);
      sink.add(M.belowQuorum, [vhost], v.belowQuorum);
      if (clusterNodes !== undefined) {
        const below = v.sizes.filter(({ members, target }) => members < Math.min(target ?? defaultTarget, clusterNodes)).length;
        sink.add(M.belowTarget, [vhost], below);
      }
    }
  }

  get empty(): boolean {
    return this.vhosts.size === 0;
  }
}

/** x-quorum-initial-group-size of the queue's arguments, when it is a positive number. */
function initialGroupSize(args: unknown): number | undefined {
  if (args === null || typeof args !== 'object') return undefined;
  const value = (args as Record<string, unknown>)['x-quorum-initial-group-size'];
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * Writes the placement of this poll's quorum queues. The target size needs the cluster's node
 * count (a queue cannot have more members than there are nodes): one small request, made only
 * when there are quorum queues; when it fails the below-target counts are left out of the poll.
 */
export async function emitQuorumPlacement(ctx: Pick<CollectContext<QueueOptions>, 'api' | 'sink' | 'options' | 'log' | 'carryOver'>, placement: QuorumPlacement): Promise<void> {
  if (placement.empty) return;
  let clusterNodes: number | undefined;
  try {
    const nodes = await ctx.api.get<unknown>('/api/nodes', { columns: 'name' });
    clusterNodes = Array.isArray(nodes) ? nodes.length : undefined;
  } catch (error) {
    logOnce(ctx, 'warn', 'quorum-nodes', { cause: (error as Error).message }, 'could not list the cluster\'s nodes: quorum queues below their target size are not counted while it fails');
  }
  placement.emit(ctx.sink, ctx.options.quorum_target_size, clusterNodes);
}
