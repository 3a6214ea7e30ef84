// What a node's rabbitmq_prometheus itself says, read with plain patterns (not the collector's
// parser): the broker tests' reference for the plugin collector.
import type { BrokerInfo } from '../../harness/broker/broker.js';

/** Statistics off on the broker: the management API counts no more, the plugin still does. */
export const STATS_OFF = ['management.disable_stats = true', 'management_agent.disable_metrics_collector = true'];

/**
 * What the node's rabbitmq_prometheus itself says of one queue's counter, summed over its rows
 * (per channel before 4.0, per exchange for publishes); undefined when it has no row for the queue.
 */
export async function pluginSays(broker: Pick<BrokerInfo, 'prometheusUrl'>, family: string, metric: string, queue: string): Promise<number | undefined> {
  const text = await (await fetch(`${broker.prometheusUrl}/metrics/detailed?family=${family}`, { signal: AbortSignal.timeout(15_000) })).text();
  const rows = text.split('\n').filter((l) => l.startsWith(`${metric}{`) && l.includes(`queue="${queue}"`));
  return rows.length === 0 ? undefined : rows.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/** The plugin's family and metric holding a per-queue counter on this broker (4.0 counts per queue, 3.x per channel). */
export function pluginCounter(broker: Pick<BrokerInfo, 'brokerVersion'>, counter: 'published' | 'acked' | 'get_ack' | 'get'): [string, string] {
  const v4 = broker.brokerVersion !== '3.10';
  switch (counter) {
    case 'published':
      return v4 ? ['queue_exchange_metrics', 'rabbitmq_detailed_queue_exchange_messages_published_total'] : ['channel_queue_exchange_metrics', 'rabbitmq_detailed_queue_messages_published_total'];
    case 'acked':
      return v4 ? ['queue_delivery_metrics', 'rabbitmq_detailed_queue_messages_acked_total'] : ['channel_queue_metrics', 'rabbitmq_detailed_channel_messages_acked_total'];
    case 'get_ack':
      return v4 ? ['queue_delivery_metrics', 'rabbitmq_detailed_queue_get_ack_total'] : ['channel_queue_metrics', 'rabbitmq_detailed_channel_get_ack_total'];
    case 'get':
      return v4 ? ['queue_delivery_metrics', 'rabbitmq_detailed_queue_get_total'] : ['channel_queue_metrics', 'rabbitmq_detailed_channel_get_total'];
  }
}

/** The plugin collector's block of an exporter configuration, enabled, with these settings. */
export const pluginConfig = (lines: string[]) => `  plugin:\n    enabled: true\n${lines.map((l) => `    ${l}\n`).join('')}`;
