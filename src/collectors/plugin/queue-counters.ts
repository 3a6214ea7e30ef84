import { renderLabels, type SampleSink } from '../../exposition/sample-sink.js';
import type { MetricDef } from '../../model/metric-def.js';
import { queueMetrics as Q } from '../queues/metrics.js';
import { MonotonicCounters } from '../kit/monotonic-counters.js';
import type { PluginExposition } from './text-parser.js';

/**
 * The queue collector's per-queue counters, read from rabbitmq_prometheus when the broker's
 * management statistics are disabled: served under the queue rows' own names and labels, so
 * dashboards and alerts read them unchanged. From 4.0 the plugin counts per queue
 * (families queue_delivery_metrics and queue_exchange_metrics, rabbitmq-server PR #11559);
 * before, only per channel (channel_queue_metrics, channel_queue_exchange_metrics), summed here.
 * Every count is made on one node (the channel's), so the sum over the cluster's nodes counts
 * each delivery once.
 */
interface CounterSource {
  readonly row: MetricDef;
  /** The per-queue family (4.0+): labels vhost, queue (and exchange for publishes). */
  readonly perQueue: string;
  /** The per-channel family (before 4.0): labels channel, vhost, queue, or queue_vhost and queue for publishes. */
  readonly perChannel: string;
}

const SOURCES: readonly CounterSource[] = [
  { row: Q.published, perQueue: 'rabbitmq_detailed_queue_exchange_messages_published_total', perChannel: 'rabbitmq_detailed_queue_messages_published_total' },
  { row: Q.deliveredAck, perQueue: 'rabbitmq_detailed_queue_messages_delivered_ack_total', perChannel: 'rabbitmq_detailed_channel_messages_delivered_ack_total' },
  { row: Q.deliveredNoAck, perQueue: 'rabbitmq_detailed_queue_messages_delivered_total', perChannel: 'rabbitmq_detailed_channel_messages_delivered_total' },
  { row: Q.getAck, perQueue: 'rabbitmq_detailed_queue_get_ack_total', perChannel: 'rabbitmq_detailed_channel_get_ack_total' },
  { row: Q.getNoAck, perQueue: 'rabbitmq_detailed_queue_get_total', perChannel: 'rabbitmq_detailed_channel_get_total' },
  { row: Q.getEmpty, perQueue: 'rabbitmq_detailed_queue_get_empty_total', perChannel: 'rabbitmq_detailed_channel_get_empty_total' },
  { row: Q.redelivered, perQueue: 'rabbitmq_detailed_queue_messages_redelivered_total', perChannel: 'rabbitmq_detailed_channel_messages_redelivered_total' },
  { row: Q.acked, perQueue: 'rabbitmq_detailed_queue_messages_acked_total', perChannel: 'rabbitmq_detailed_channel_messages_acked_total' },
];

/** message_stats.deliver_get: deliveries and gets in either ack mode, as the management API sums them. */
const DELIVER_GET = [Q.deliveredAck, Q.deliveredNoAck, Q.getAck, Q.getNoAck];

const NO_RECORD = Object.freeze({});

/** The queue rows this collector may serve (for docs and tests). */
export const QUEUE_ROWS_FROM_PLUGIN: readonly MetricDef[] = [...SOURCES.map((s) => s.row), Q.deliverGet];

/** The detailed families holding the per-queue counters on a broker of this major version. */
export function queueCounterFamilies(major: number): string[] {
  return major >= 4 ? ['queue_delivery_metrics', 'queue_exchange_metrics'] : ['channel_queue_metrics', 'channel_queue_exchange_metrics'];
}

/** One node's answer: `source` is its endpoint (stable whether it answers or not). */
export interface NodeCounters {
  readonly source: string;
  readonly exposition: PluginExposition;
}

/** What the queue counters keep from one poll to the next. */
export class QueueCounterMemory {
  readonly monotonic = new MonotonicCounters();
  /** Before 4.0: each channel's last count, by endpoint, row, queue and channel. */
  channels = new Map<string, number>();
  /** Before 4.0: counts of channels that closed, by row and queue (they left the plugin's answer). */
  readonly closed = new Map<string, number>();
}

/**
 * Adds each node's counters into per-queue sums and writes them as the queue rows, kept monotonic
 * across polls. Before 4.0 a closed channel's counts leave the plugin's per-channel families: they
 * are kept while the queue still has a channel counted, and the series ends with its last channel.
 */
export function writeQueueCounters(sink: SampleSink, nodes: readonly NodeCounters[], major: number, memory: QueueCounterMemory): void {
  const perQueue = major >= 4;
  const sums = new Map<MetricDef, Map<string, number>>();
  const channels = new Map<string, number>();
  for (const source of SOURCES) {
    const family = perQueue ? source.perQueue : source.perChannel;
    const into = new Map<string, number>();
    sums.set(source.row, into);
    for (const { source: endpoint, exposition } of nodes) {
      for (const sample of exposition.samples.get(family) ?? []) {
        const vhost = sample.labels.vhost ?? sample.labels.queue_vhost;
        const queue = sample.labels.queue;
        if (vhost === undefined || queue === undefined || !Number.isFinite(sample.value)) continue;
        const key = renderLabels(source.row.labels, [vhost, queue]);
        into.set(key, (into.get(key) ?? 0) + sample.value);
        if (!perQueue) channels.set([endpoint, source.row.name, key, sample.labels.channel ?? ''].join('\u0000'), sample.value);
      }
    }
  }
  if (!perQueue) addClosedChannels(sums, channels, memory);
  const deliverGet = new Map<string, number>();
  for (const row of DELIVER_GET) for (const [key, value] of sums.get(row)!) deliverGet.set(key, (deliverGet.get(key) ?? 0) + value);
  sums.set(Q.deliverGet, deliverGet);
  for (const [row, byQueue] of sums) {
    // No broker record comes with these samples: a naming profile's labels read from one (a queue's
    // durable flag and policy, say) are served empty.
    for (const [labels, value] of byQueue) sink.addRendered(row, labels, memory.monotonic.adjust(labels, row.name, value), NO_RECORD);
  }
  memory.monotonic.commit();
}

function addClosedChannels(sums: Map<MetricDef, Map<string, number>>, channels: Map<string, number>, memory: QueueCounterMemory): void {
  const rows = new Map(SOURCES.map((s) => [s.row.name, s.row]));
  for (const [channel, last] of memory.channels) {
    if (channels.has(channel)) continue;
    const [, rowName, key] = channel.split('\u0000');
    const closedKey = `${rowName}\u0000${key}`;
    memory.closed.set(closedKey, (memory.closed.get(closedKey) ?? 0) + last);
  }
  for (const [closedKey, count] of memory.closed) {
    const [rowName, key] = closedKey.split('\u0000') as [string, string];
    const byQueue = sums.get(rows.get(rowName)!)!;
    const open = byQueue.get(key);
    // No channel of the queue left: its series ends, and with it what its closed channels counted.
    if (open === undefined) memory.closed.delete(closedKey);
    else byQueue.set(key, open + count);
  }
  memory.channels = channels;
}
