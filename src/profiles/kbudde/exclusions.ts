import type { MetricDef } from '../../model/metric-def.js';

/** kbudde's EXCLUDE_METRICS keys of families computed rather than read from one field. */
const COMPUTED_EXCLUDE_KEYS: Readonly<Record<string, string>> = {
  rabbitmq_node_partitions: 'partitions_len',
  rabbitmq_queue_members: 'members_len',
  rabbitmq_queue_members_online: 'online_len',
  rabbitmq_queue_max_length_messages: 'max-length',
  rabbitmq_queue_max_length_bytes: 'max-length-bytes',
  // kbudde's connection families are sums of one field each (our by_peer_host aggregates).
  rabbitmq_connections_by_peer_host_channels: 'channels',
  rabbitmq_connections_by_peer_host_incoming_bytes: 'recv_oct',
  rabbitmq_connections_by_peer_host_outgoing_bytes: 'send_oct',
  rabbitmq_connections_by_peer_host_incoming_packets: 'recv_cnt',
  rabbitmq_connections_by_peer_host_outgoing_packets: 'send_cnt',
  rabbitmq_connections_by_peer_host_send_pending_bytes: 'send_pend',
};

/**
 * The families kbudde's EXCLUDE_METRICS keys remove: those read from a listed field, and the rate
 * gauges of a listed `<field>_details.rate`. A key removes its families in every collector, as in kbudde.
 */
export function excludedFamilies(metrics: readonly MetricDef[], keys: readonly string[]): ReadonlySet<MetricDef> {
  const excluded = new Set<MetricDef>();
  if (keys.length === 0) return excluded;
  for (const def of metrics) {
    const computedKey = COMPUTED_EXCLUDE_KEYS[def.name];
    if (computedKey !== undefined && keys.includes(computedKey)) excluded.add(def);
    const field = def.source?.field;
    if (field === undefined) continue;
    if (keys.includes(field)) excluded.add(def);
    if (def.rate && keys.includes(`${field}_details.rate`)) excluded.add(def.rate);
  }
  return excluded;
}
