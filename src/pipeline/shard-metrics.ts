import { exporterMetrics as M } from '../collectors/exporter/metrics.js';
import type { RenderedFamily } from '../exposition/text-format.js';
import { SampleSink } from '../exposition/sample-sink.js';
import type { ShardConfig } from '../model/shard-assignment.js';

/** Which shard this replica is, named as kube-state-metrics names its own (shard_ordinal, total_shards). */
export function shardFamilies(config: ShardConfig): RenderedFamily[] {
  const sink = new SampleSink();
  sink.add(M.shardOrdinal, [], config.shard);
  sink.add(M.totalShards, [], config.totalShards);
  return sink.finish();
}
