import { boundedLabelValue } from './label-value.js';

/**
 * How replicas split the work (as kube-state-metrics does with --shard/--total-shards): every
 * name is hashed (32-bit FNV-1a of its UTF-8 bytes) and belongs to shard `hash mod total`. The
 * hash is fixed: every replica, whatever its version or platform, agrees on who owns what.
 */

/** This replica's place among its peers: shard `shard` of `totalShards` (0-based). */
export interface ShardConfig {
  shard: number;
  totalShards: number;
}

/** One replica doing everything: the default. */
export const ONE_SHARD: ShardConfig = { shard: 0, totalShards: 1 };

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a of the text's UTF-8 bytes, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME) >>> 0;
  }
  return hash >>> 0;
}

/** The shard a name belongs to among `totalShards`. */
export function shardOf(name: string, totalShards: number): number {
  return fnv1a32(name) % totalShards;
}

/**
 * What of one target this replica serves. The target's cluster-wide series (overview, nodes,
 * feature flags, rabbitmq_up, ...) belong to the shard owning the target's name; each vhost's
 * series to the shard owning "target name, NUL, vhost name", so the vhosts of one big broker
 * spread over all shards, and "/" of many small brokers does not pile up on one.
 */
export class TargetShare {
  /** True when this replica serves everything of the target (one shard). */
  readonly whole: boolean;
  readonly ownsClusterSeries: boolean;

  constructor(
    private readonly config: ShardConfig,
    private readonly targetName: string,
  ) {
    this.whole = config.totalShards === 1;
    this.ownsClusterSeries = this.whole || shardOf(targetName, config.totalShards) === config.shard;
  }

  /** Hashed as served (see boundedLabelValue), so a record and its rendered series agree. */
  ownsVhost(vhost: string): boolean {
    return this.whole || shardOf(`${this.targetName}\u0000${boundedLabelValue(vhost)}`, this.config.totalShards) === this.config.shard;
  }

  /** Whether a series is this replica's: by its vhost label, or cluster-wide (no vhost, or an empty one). */
  keeps(vhost: string | undefined): boolean {
    return vhost === undefined || vhost === '' ? this.ownsClusterSeries : this.ownsVhost(vhost);
  }
}

/** The ordinal of a StatefulSet's pod from its name (`rabbitmq-exporter-3` → 3), or undefined. */
export function podOrdinal(podName: string): number | undefined {
  const match = /-(\d{1,9})$/.exec(podName);
  return match ? Number(match[1]) : undefined;
}
