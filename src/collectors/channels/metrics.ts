import { defineMetrics, type MetricDef, type MetricSpec } from '../../model/metric-def.js';

const g = 'gauge' as const;
const V = ['vhost'] as const;
/** Per-channel series (option per_channel). */
const CH = ['channel', 'vhost', 'user'] as const;
const PER_CHANNEL = 'Only with per_channel.';
const SUM = 'Summed over the vhost\'s open channels, from /api/channels.';

export const channelMetrics = defineMetrics('channels', {
  byState: {
    name: 'rabbitmq_channels_by_state',
    type: g,
    labels: ['vhost', 'state'],
    help: 'Open channels by vhost and state (running, flow, ...). The cluster total is rabbitmq_channels.',
  },
  unacked: { name: 'rabbitmq_channels_messages_unacked', type: g, labels: V, help: `Messages delivered on the channels and not yet acknowledged (messages_unacknowledged). ${SUM}` },
  unconfirmed: { name: 'rabbitmq_channels_messages_unconfirmed', type: g, labels: V, help: `Messages published on confirm-mode channels and not yet confirmed (messages_unconfirmed). ${SUM}` },
  uncommitted: { name: 'rabbitmq_channels_messages_uncommitted', type: g, labels: V, help: `Messages received in transactions not yet committed (messages_uncommitted). ${SUM}` },
  acksUncommitted: { name: 'rabbitmq_channels_acks_uncommitted', type: g, labels: V, help: `Acknowledgements received in transactions not yet committed (acks_uncommitted). ${SUM}` },
  prefetch: {
    name: 'rabbitmq_channels_prefetch',
    type: g,
    labels: V,
    help: `Prefetch limits of the channels for new consumers (prefetch_count; 0 means unlimited and adds nothing). ${SUM} Consumers without a limit: rabbitmq_consumers_by_prefetch{prefetch="unlimited"}.`,
  },

  unackedPerChannel: { source: { field: 'messages_unacknowledged' }, option: 'per_channel', name: 'rabbitmq_channel_messages_unacked', type: g, labels: CH, help: `Messages delivered on the channel and not yet acknowledged. ${PER_CHANNEL}` },
  unconfirmedPerChannel: { source: { field: 'messages_unconfirmed' }, option: 'per_channel', name: 'rabbitmq_channel_messages_unconfirmed', type: g, labels: CH, help: `Messages published on the channel and not yet confirmed. ${PER_CHANNEL}` },
  uncommittedPerChannel: { source: { field: 'messages_uncommitted' }, option: 'per_channel', name: 'rabbitmq_channel_messages_uncommitted', type: g, labels: CH, help: `Messages received in a transaction not yet committed. ${PER_CHANNEL}` },
  acksUncommittedPerChannel: { source: { field: 'acks_uncommitted' }, option: 'per_channel', name: 'rabbitmq_channel_acks_uncommitted', type: g, labels: CH, help: `Acknowledgements received in a transaction not yet committed. ${PER_CHANNEL}` },
  prefetchPerChannel: { source: { field: 'prefetch_count' }, option: 'per_channel', name: 'rabbitmq_channel_prefetch', type: g, labels: CH, help: `Prefetch limit of the channel for new consumers (prefetch_count; 0 is unlimited). ${PER_CHANNEL}` },
  consumersPerChannel: { source: { field: 'consumer_count' }, option: 'per_channel', name: 'rabbitmq_channel_consumers', type: g, labels: CH, help: `Consumers on the channel (consumer_count). ${PER_CHANNEL}` },
});

/** A field of a channel's message_stats and its three families. */
export interface ChannelMessageStat {
  /** Field in message_stats, e.g. `publish`. */
  readonly field: string;
  /** Per vhost: the sum of the field over the open channels (a gauge: drops when a channel closes). */
  readonly sum: MetricDef;
  /** Per vhost: the sum of the field's `_details.rate`. */
  readonly rate: MetricDef;
  /** Per channel (option per_channel): the field as a counter. */
  readonly counter: MetricDef;
}

/** message_stats fields, the suffix of their names (rabbitmq_prometheus's per-channel names), and what they count. */
const STATS: readonly (readonly [field: string, suffix: string, what: string])[] = [
  ['publish', 'messages_published', 'Messages published'],
  ['confirm', 'messages_confirmed', 'Messages confirmed to the publisher'],
  ['return_unroutable', 'messages_unroutable_returned', 'Mandatory messages returned to the publisher as unroutable'],
  ['drop_unroutable', 'messages_unroutable_dropped', 'Messages dropped as unroutable'],
  ['deliver', 'messages_delivered_ack', 'Messages delivered to consumers in manual-ack mode (deliver)'],
  ['deliver_no_ack', 'messages_delivered', 'Messages delivered to consumers in auto-ack mode (deliver_no_ack)'],
  ['get', 'get_ack', 'Messages fetched with basic.get in manual-ack mode (get)'],
  ['get_no_ack', 'get', 'Messages fetched with basic.get in auto-ack mode (get_no_ack)'],
  ['get_empty', 'get_empty', 'basic.get calls that found the queue empty'],
  ['redeliver', 'messages_redelivered', 'Messages delivered again after a requeue'],
  ['ack', 'messages_acked', 'Acknowledgements received from consumers'],
];

function statSpecs() {
  const specs: Record<string, MetricSpec & { name: string }> = {};
  for (const [field, suffix, what] of STATS) {
    specs[`${field}:sum`] = {
      name: `rabbitmq_channels_${suffix}`,
      type: 'gauge',
      labels: V,
      help: `${what} on the vhost's open channels since each opened (message_stats.${field}). ${SUM} Not a counter: it drops when a channel closes; use the _per_second gauge, or per_channel mode for counters.`,
    };
    specs[`${field}:rate`] = {
      name: `rabbitmq_channels_${suffix}_per_second`,
      type: 'gauge',
      labels: V,
      help: `${what} per second on the vhost's open channels, as the management API computes it over its sampling window (sum of message_stats.${field}_details.rate).`,
    };
    specs[`${field}:counter`] = {
      option: 'per_channel',
      source: { field: `message_stats.${field}` },
      name: `rabbitmq_channel_${suffix}_total`,
      type: 'counter',
      labels: CH,
      help: `${what} on the channel (message_stats.${field}). ${PER_CHANNEL}`,
    };
  }
  return specs;
}

const statDefs = defineMetrics('channels', statSpecs());

export const channelMessageStats: readonly ChannelMessageStat[] = STATS.map(([field]) => ({
  field,
  sum: statDefs[`${field}:sum`]!,
  rate: statDefs[`${field}:rate`]!,
  counter: statDefs[`${field}:counter`]!,
}));
