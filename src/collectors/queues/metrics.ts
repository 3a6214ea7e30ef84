import { type DerivedLabel, defineMetrics } from '../../model/metric-def.js';

const c = 'counter' as const;
const g = 'gauge' as const;
const Q = ['vhost', 'queue'] as const;
const VT = ['vhost', 'type'] as const;

/**
 * kbudde's queue families: labels {cluster,vhost,queue,durable,policy,self}, durable and policy
 * from the queue's record, self from its `node` field (docs/kbudde-mapping.md).
 */
const kbudde = (name: string) => ({
  kbudde: { name, labels: ['cluster', 'vhost', 'queue', 'durable', 'policy', 'self'], fields: { durable: 'durable', policy: 'policy', self: 'node' } },
});

/** Arguments worth seeing on rabbitmq_queue_info, as label names (x-max-length → x_max_length). */
export const QUEUE_INFO_ARGUMENTS = [
  'x-max-length',
  'x-max-length-bytes',
  'x-overflow',
  'x-message-ttl',
  'x-expires',
  'x-dead-letter-exchange',
  'x-queue-mode',
  'x-single-active-consumer',
  'x-delivery-limit',
  'x-queue-leader-locator',
] as const;

/** The label name of a queue argument on rabbitmq_queue_info: x-max-length → x_max_length. */
export function infoLabelOf(argument: string): string {
  return argument.replace(/-/g, '_');
}

/** kbudde's queue state: the API's, but `idle` for a running queue that reports idle_since. */
const KBUDDE_QUEUE_STATE: DerivedLabel = {
  id: 'kbudde_queue_state',
  reads: ['state', 'idle_since'],
  value: (queue) => {
    const state = typeof queue.state === 'string' ? queue.state : '';
    return state === 'running' && typeof queue.idle_since === 'string' && queue.idle_since !== '' ? 'idle' : state;
  },
};

export const queueMetrics = defineMetrics('queues', {
  info: {
    name: 'rabbitmq_queue_info',
    // kbudde's rabbitmq_queue_state: one series per queue, value 1, its state (idle or not) a label.
    names: {
      kbudde: {
        name: 'rabbitmq_queue_state',
        labels: ['cluster', 'vhost', 'queue', 'durable', 'policy', 'self', 'state'],
        fields: { durable: 'durable', policy: 'policy', self: 'node' },
        derived: { state: KBUDDE_QUEUE_STATE },
      },
    },
    type: g,
    labels: [
      'vhost', 'queue', 'type', 'durable', 'auto_delete', 'exclusive', 'policy', 'operator_policy', 'node', 'state',
      ...QUEUE_INFO_ARGUMENTS.map(infoLabelOf),
    ],
    help: 'A queue\'s metadata; value 1. node is the classic queue\'s node or the quorum/stream leader. Join on (vhost, queue).',
  },
  maxLength: {
    option: 'limits', name: 'rabbitmq_queue_max_length_messages',
    names: kbudde('rabbitmq_queue_max_length'),
    type: g,
    labels: Q,
    help: 'The queue\'s length limit in messages: the smaller of its x-max-length argument and its effective policy\'s max-length (policy and operator policy); no series when neither sets one. Only with the limits option.',
  },
  maxLengthBytes: {
    option: 'limits', name: 'rabbitmq_queue_max_length_bytes',
    names: kbudde('rabbitmq_queue_max_length_bytes'),
    type: g,
    labels: Q,
    help: 'The queue\'s length limit in bytes of message bodies: the smaller of its x-max-length-bytes argument and its effective policy\'s max-length-bytes; no series when neither sets one. Only with the limits option.',
  },
  running: { name: 'rabbitmq_queue_running', type: g, labels: Q, help: '1 when the queue\'s state is running (or live, idle, flow), 0 for down, crashed, stopped, minority, terminated. The state itself is on rabbitmq_queue_info.' },
  idleSince: { name: 'rabbitmq_queue_idle_since_timestamp_seconds', names: kbudde('rabbitmq_queue_idle_since_seconds'), type: g, labels: Q, help: 'When the queue became idle (Unix time); absent while it is active.' },
  members: { name: 'rabbitmq_queue_members', names: kbudde('rabbitmq_queue_member_nodes_len'), type: g, labels: Q, help: 'Quorum and stream queues: replicas (members).' },
  membersOnline: { name: 'rabbitmq_queue_members_online', names: kbudde('rabbitmq_queue_online_nodes_len'), type: g, labels: Q, help: 'Quorum and stream queues: replicas online; below a majority of rabbitmq_queue_members the queue is unavailable.' },

  messages: { source: { field: 'messages' }, name: 'rabbitmq_queue_messages', names: kbudde('rabbitmq_queue_messages'), type: g, labels: Q, rate: true, help: 'Messages in the queue, ready plus unacknowledged.' },
  messagesReady: { source: { field: 'messages_ready' }, name: 'rabbitmq_queue_messages_ready', names: kbudde('rabbitmq_queue_messages_ready'), type: g, labels: Q, rate: true, help: 'Messages ready for delivery.' },
  messagesUnacked: { source: { field: 'messages_unacknowledged' }, name: 'rabbitmq_queue_messages_unacked', names: kbudde('rabbitmq_queue_messages_unacknowledged'), type: g, labels: Q, rate: true, help: 'Messages delivered and not yet acknowledged.' },
  messagesBytes: { source: { field: 'message_bytes' }, name: 'rabbitmq_queue_messages_bytes', names: kbudde('rabbitmq_queue_message_bytes'), type: g, labels: Q, help: 'Size of the message bodies in the queue (message_bytes).' },
  messagesReadyBytes: { source: { field: 'message_bytes_ready' }, name: 'rabbitmq_queue_messages_ready_bytes', names: kbudde('rabbitmq_queue_message_bytes_ready'), type: g, labels: Q, help: 'Size of the ready message bodies (message_bytes_ready).' },
  messagesUnackedBytes: { source: { field: 'message_bytes_unacknowledged' }, name: 'rabbitmq_queue_messages_unacked_bytes', names: kbudde('rabbitmq_queue_message_bytes_unacknowledged'), type: g, labels: Q, help: 'Size of the unacknowledged message bodies (message_bytes_unacknowledged).' },
  messagesRam: { source: { field: 'messages_ram' }, name: 'rabbitmq_queue_messages_ram', names: kbudde('rabbitmq_queue_messages_ram'), type: g, labels: Q, help: 'Messages held in memory (messages_ram).' },
  messagesReadyRam: { source: { field: 'messages_ready_ram' }, name: 'rabbitmq_queue_messages_ready_ram', names: kbudde('rabbitmq_queue_messages_ready_ram'), type: g, labels: Q, help: 'Ready messages held in memory (messages_ready_ram).' },
  messagesUnackedRam: { source: { field: 'messages_unacknowledged_ram' }, name: 'rabbitmq_queue_messages_unacked_ram', names: kbudde('rabbitmq_queue_messages_unacknowledged_ram'), type: g, labels: Q, help: 'Unacknowledged messages held in memory (messages_unacknowledged_ram).' },
  messagesRamBytes: { source: { field: 'message_bytes_ram' }, name: 'rabbitmq_queue_messages_ram_bytes', names: kbudde('rabbitmq_queue_message_bytes_ram'), type: g, labels: Q, help: 'Size of the message bodies held in memory (message_bytes_ram).' },
  messagesPersistent: { source: { field: 'messages_persistent' }, name: 'rabbitmq_queue_messages_persistent', names: kbudde('rabbitmq_queue_messages_persistent'), type: g, labels: Q, help: 'Persistent messages (messages_persistent).' },
  messagesPersistentBytes: { source: { field: 'message_bytes_persistent' }, name: 'rabbitmq_queue_messages_persistent_bytes', names: kbudde('rabbitmq_queue_message_bytes_persistent'), type: g, labels: Q, help: 'Size of the persistent message bodies (message_bytes_persistent).' },
  messagesPagedOut: { source: { field: 'messages_paged_out' }, name: 'rabbitmq_queue_messages_paged_out', type: g, labels: Q, help: 'Messages paged out to disk (messages_paged_out).' },
  messagesPagedOutBytes: { source: { field: 'message_bytes_paged_out' }, name: 'rabbitmq_queue_messages_paged_out_bytes', type: g, labels: Q, help: 'Size of the message bodies paged out to disk (message_bytes_paged_out).' },
  messagesDlx: { source: { field: 'messages_dlx' }, name: 'rabbitmq_queue_messages_dead_lettered_pending', type: g, labels: Q, help: 'Quorum queue: messages waiting for at-least-once dead-lettering (messages_dlx).' },
  messagesDlxBytes: { source: { field: 'message_bytes_dlx' }, name: 'rabbitmq_queue_messages_dead_lettered_pending_bytes', type: g, labels: Q, help: 'Quorum queue: size of the messages waiting for at-least-once dead-lettering (message_bytes_dlx).' },
  consumers: { source: { field: 'consumers' }, name: 'rabbitmq_queue_consumers', names: kbudde('rabbitmq_queue_consumers'), type: g, labels: Q, help: 'Consumers of the queue.' },
  consumerUtilisation: { source: { field: 'consumer_utilisation' }, name: 'rabbitmq_queue_consumer_utilisation', names: kbudde('rabbitmq_queue_consumer_utilisation'), type: g, labels: Q, unit: 'ratio', help: 'Fraction of time the queue could deliver to consumers at once (consumer_utilisation, 0 to 1).' },
  consumerCapacity: { source: { field: 'consumer_capacity' }, name: 'rabbitmq_queue_consumer_capacity', type: g, labels: Q, unit: 'ratio', help: 'Fraction of time the queue could deliver to consumers at once (consumer_capacity, 0 to 1; the newer name of consumer_utilisation).' },
  memory: { source: { field: 'memory' }, name: 'rabbitmq_queue_process_memory_bytes', names: kbudde('rabbitmq_queue_memory'), type: g, labels: Q, help: 'Memory used by the queue\'s Erlang process (memory).' },
  headMessageTimestamp: { source: { field: 'head_message_timestamp' }, name: 'rabbitmq_queue_head_message_timestamp_seconds', names: kbudde('rabbitmq_queue_head_message_timestamp'), type: g, labels: Q, help: 'The timestamp property of the message at the head of the queue (Unix time, as the publisher set it); absent when the queue is empty or the message has none.' },
  messagesDelayed: { source: { field: 'messages_delayed' }, name: 'rabbitmq_queue_messages_delayed', type: g, labels: Q, help: 'Quorum queue (RabbitMQ 4.3+): returned messages held back for a delayed retry before they are ready again (messages_delayed); absent where the broker does not report it.' },
  messagesReadyReturned: { source: { field: 'messages_ready_returned' }, name: 'rabbitmq_queue_messages_ready_returned', type: g, labels: Q, help: 'Quorum queue (RabbitMQ 4.0+): ready messages that consumers returned (rejected or nacked with requeue, or whose channel closed), delivered before the other ready ones (messages_ready_returned); absent where the broker does not report it.' },
  publishers: { source: { field: 'publishers' }, name: 'rabbitmq_queue_publishers', type: g, labels: Q, help: 'Quorum queue (RabbitMQ 4.0+): publishers of the queue, as the queue counts them (publishers); absent where the broker does not report it.' },
  deliveryLimit: { source: { field: 'delivery_limit' }, name: 'rabbitmq_queue_delivery_limit', type: g, labels: Q, help: 'Quorum queue (RabbitMQ 4.0+): the delivery limit in effect (delivery_limit: from the x-delivery-limit argument or policy, 20 by default on 4.x), after which a returned message is dead-lettered or dropped; absent when unlimited or not reported.' },
  streamSegments: { source: { field: 'segments' }, name: 'rabbitmq_queue_stream_segments', type: g, labels: Q, help: 'Stream (RabbitMQ 4.0+): segment files of the stream on its leader (segments); retention removes whole segments.' },
  reductions: { source: { field: 'reductions' }, name: 'rabbitmq_queue_reductions_total', names: kbudde('rabbitmq_queue_reductions_total'), type: c, labels: Q, rate: true, help: 'Erlang reductions (units of work) of the queue process.' },

  published: { source: { field: 'message_stats.publish' }, name: 'rabbitmq_queue_messages_published_total', names: kbudde('rabbitmq_queue_messages_published_total'), rateNames: kbudde('rabbitmq_queue_messages_publish_rate'), type: c, labels: Q, rate: true, help: 'Messages published into the queue (message_stats.publish).' },
  deliveredAck: { source: { field: 'message_stats.deliver' }, name: 'rabbitmq_queue_messages_delivered_ack_total', names: kbudde('rabbitmq_queue_messages_delivered_total'), rateNames: kbudde('rabbitmq_queue_messages_deliver_rate'), type: c, labels: Q, rate: true, help: 'Messages delivered to consumers in manual-ack mode (message_stats.deliver).' },
  deliveredNoAck: { source: { field: 'message_stats.deliver_no_ack' }, name: 'rabbitmq_queue_messages_delivered_total', names: kbudde('rabbitmq_queue_messages_delivered_noack_total'), rateNames: kbudde('rabbitmq_queue_messages_deliver_no_ack_rate'), type: c, labels: Q, rate: true, help: 'Messages delivered to consumers in auto-ack mode (message_stats.deliver_no_ack; rabbitmq_prometheus\'s meaning of this name).' },
  getAck: { source: { field: 'message_stats.get' }, name: 'rabbitmq_queue_get_ack_total', names: kbudde('rabbitmq_queue_messages_get_total'), type: c, labels: Q, rate: true, help: 'Messages fetched with basic.get in manual-ack mode (message_stats.get).' },
  getNoAck: { source: { field: 'message_stats.get_no_ack' }, name: 'rabbitmq_queue_get_total', names: kbudde('rabbitmq_queue_messages_get_noack_total'), type: c, labels: Q, rate: true, help: 'Messages fetched with basic.get in auto-ack mode (message_stats.get_no_ack).' },
  getEmpty: { source: { field: 'message_stats.get_empty' }, name: 'rabbitmq_queue_get_empty_total', type: c, labels: Q, rate: true, help: 'basic.get calls that found the queue empty (message_stats.get_empty).' },
  deliverGet: { source: { field: 'message_stats.deliver_get' }, name: 'rabbitmq_queue_messages_delivered_or_got_total', type: c, labels: Q, rate: true, help: 'Deliveries and gets in any ack mode (message_stats.deliver_get).' },
  redelivered: { source: { field: 'message_stats.redeliver' }, name: 'rabbitmq_queue_messages_redelivered_total', names: kbudde('rabbitmq_queue_messages_redelivered_total'), type: c, labels: Q, rate: true, help: 'Messages delivered again after a requeue (message_stats.redeliver).' },
  acked: { source: { field: 'message_stats.ack' }, name: 'rabbitmq_queue_messages_acked_total', names: kbudde('rabbitmq_queue_messages_ack_total'), type: c, labels: Q, rate: true, help: 'Messages acknowledged by consumers (message_stats.ack).' },
  confirmed: { source: { field: 'message_stats.confirm' }, name: 'rabbitmq_queue_messages_confirmed_total', names: kbudde('rabbitmq_queue_messages_confirmed_total'), type: c, labels: Q, rate: true, help: 'Messages routed to the queue and confirmed to publishers (message_stats.confirm).' },
  returnedUnroutable: { source: { field: 'message_stats.return_unroutable' }, name: 'rabbitmq_queue_messages_returned_unroutable_total', type: c, labels: Q, rate: true, help: 'message_stats.return_unroutable of the queue.' },
  droppedUnroutable: { source: { field: 'message_stats.drop_unroutable' }, name: 'rabbitmq_queue_messages_dropped_unroutable_total', type: c, labels: Q, rate: true, help: 'message_stats.drop_unroutable of the queue.' },

  estimatedWait: { option: 'signals', name: 'rabbitmq_queue_estimated_wait_seconds', type: g, labels: Q, help: 'Signals: how long a message that becomes ready now would wait: ready messages (this poll) divided by the drain rate, the larger of the growth of message_stats.deliver_get and of message_stats.ack per second between the oldest and newest of the last collectors.queues.signals_window statistics polls. 0 when nothing is ready; +Inf when messages are ready and nothing was delivered, got or acked over that window; absent before two statistics polls, without message_stats, or with statistics disabled. Only with the signals option.' },
  withoutProgress: { option: 'signals', name: 'rabbitmq_queue_without_progress_seconds', type: g, labels: Q, help: 'Signals: how long the queue has held messages (ready or unacknowledged) while neither message_stats.deliver_get nor message_stats.ack moved, measured between statistics polls (as of the last one: rabbitmq_queue_statistics_age_seconds); 0 when it moved or the queue is empty; a counter reset or a re-created queue starts it again. Absent without statistics. Only with the signals option.' },
  unackedStalled: { option: 'signals', name: 'rabbitmq_queue_unacked_stalled_seconds', type: g, labels: Q, help: 'Signals: how long the queue\'s consumers have held unacknowledged messages while message_stats.ack did not move, between statistics polls (as of the last one); 0 otherwise. Absent without statistics. Only with the signals option.' },
  consumersStuck: { option: 'signals', name: 'rabbitmq_queue_consumers_stuck', type: g, labels: Q, help: 'Signals: 1 when the queue has held unacknowledged messages with message_stats.ack unchanged for collectors.queues.stuck_after statistics polls in a row (consumers that take messages and never acknowledge them), else 0. Absent without statistics. Only with the signals option.' },
  vhostQueuesConsumersStuck: { option: 'signals', name: 'rabbitmq_vhost_queues_consumers_stuck', type: g, labels: ['vhost'], help: 'Signals: queues of the vhost whose rabbitmq_queue_consumers_stuck is 1 (among the queues with per-queue series). Only with the signals option and statistics.' },
  deadLetterTarget: { option: 'signals', name: 'rabbitmq_queue_dead_letter_target_info', type: g, labels: ['vhost', 'queue', 'dead_letter_exchange'], help: 'Signals: the queue receives dead letters from dead_letter_exchange, the dead-letter exchange of some queue of the vhost (its x-dead-letter-exchange argument, else its effective policy\'s dead-letter-exchange), through a binding of that exchange (followed through exchange-to-exchange bindings), whatever the routing key; for the default exchange, the queue its dead-letter routing key names. Value 1. Bindings are read every collectors.queues.stats_every polls (4 when 0) and when the set of dead-letter exchanges changes, only of exchanges that are some queue\'s dead-letter exchange. Only with the signals option.' },
  lengthLimitRatio: { option: 'signals', name: 'rabbitmq_queue_length_limit_ratio', type: g, labels: Q, unit: 'ratio', help: 'Signals: ready messages divided by the queue\'s max-length (the smaller of its argument and effective policy; RabbitMQ counts ready messages against it), this poll; absent without a limit. Only with the signals option.' },
  lengthLimitTimeToFull: { option: 'signals', name: 'rabbitmq_queue_length_limit_time_to_full_seconds', type: g, labels: Q, help: 'Signals: seconds until ready messages reach max-length at their growth per second between the oldest and newest of the last collectors.queues.signals_window polls; 0 at the limit, +Inf when not growing, absent before two polls or without a limit. Only with the signals option.' },
  bytesLimitRatio: { option: 'signals', name: 'rabbitmq_queue_bytes_limit_ratio', type: g, labels: Q, unit: 'ratio', help: 'Signals: bytes of ready message bodies (message_bytes_ready) divided by the queue\'s max-length-bytes, at the last statistics poll; absent without a limit or statistics. Only with the signals option.' },
  bytesLimitTimeToFull: { option: 'signals', name: 'rabbitmq_queue_bytes_limit_time_to_full_seconds', type: g, labels: Q, help: 'Signals: seconds until message_bytes_ready reaches max-length-bytes at its growth over the last collectors.queues.signals_window statistics polls (as of the last one); 0 at the limit, +Inf when not growing, absent before two statistics polls, without a limit or statistics. Only with the signals option.' },

  statisticsAge: { name: 'rabbitmq_queue_statistics_age_seconds', type: g, unit: 'seconds', help: 'Age of the per-queue statistics served (message_stats, rates, bytes, memory, utilisation, head timestamp, idle since) at the queue collector\'s last poll: they are fetched every collectors.queues.stats_every polls and served unchanged in between; 0 when that poll fetched them.' },
  nodeQueues: {
    name: 'rabbitmq_vhost_queues_per_node',
    type: g,
    labels: ['vhost', 'node'],
    help: 'Queues of the vhost per node: a classic queue\'s node, a quorum or stream queue\'s leader, as rabbitmq_queue_info gives it; counts every queue of the vhost. Served while the collector watches every vhost (no collectors.queues.vhosts filter, filter_on_broker off; sharded, each shard its own vhosts) and reads the queues\' nodes (collectors.queues.info on, the default); on a node target their sum is rabbitmq_queues.',
  },
  vhostQueues: { name: 'rabbitmq_vhost_queues', type: g, labels: VT, help: 'Queues per vhost and type; counts every queue of the watched vhosts, filtered or capped or not.' },
  vhostQueueMessages: { name: 'rabbitmq_vhost_queue_messages', type: g, labels: VT, help: 'Messages in the queues of a vhost and type (sum of rabbitmq_queue_messages, over all queues).' },
  vhostQueueMessagesReady: { name: 'rabbitmq_vhost_queue_messages_ready', type: g, labels: VT, help: 'Ready messages in the queues of a vhost and type.' },
  vhostQueueMessagesUnacked: { name: 'rabbitmq_vhost_queue_messages_unacked', type: g, labels: VT, help: 'Unacknowledged messages in the queues of a vhost and type.' },
  vhostQueueMessagesBytes: { name: 'rabbitmq_vhost_queue_messages_bytes', type: g, labels: VT, help: 'Size of the message bodies in the queues of a vhost and type.' },
  vhostQueueConsumers: { name: 'rabbitmq_vhost_queue_consumers', type: g, labels: VT, help: 'Consumers of the queues of a vhost and type.' },
  vhostQueueMemory: { name: 'rabbitmq_vhost_queue_process_memory_bytes', type: g, labels: VT, help: 'Memory of the queue processes of a vhost and type.' },
  vhostQueuesNotRunning: { name: 'rabbitmq_vhost_queues_not_running', type: g, labels: VT, help: 'Queues of a vhost and type whose state is not running (down, crashed, minority, ...).' },
  vhostQueuesWithoutConsumers: { name: 'rabbitmq_vhost_queues_ready_without_consumers', type: g, labels: VT, help: 'Queues of a vhost and type that hold ready messages and have no consumer.' },

  seriesFiltered: { name: 'rabbitmq_queue_series_filtered', type: g, help: 'Queues whose per-queue series were left out by the include/exclude, exclusive or auto-delete filters (still counted in the rabbitmq_vhost_queue* aggregates).' },
  seriesCapped: { name: 'rabbitmq_queue_series_capped', type: g, help: 'Queues whose per-queue series were left out because collectors.queues.max_queues was reached (still counted in the aggregates).' },
  query: { name: 'rabbitmq_queue_query_info', type: g, labels: ['mode', 'per_vhost', 'paged'], help: 'How the queue collector asks the broker: mode is columns, totals (disable_stats with queue totals), full or detailed; value 1.' },
  degraded: { name: 'rabbitmq_queue_statistics_degraded', type: g, help: '1 when the broker has statistics disabled and the queue collector serves only message counts (no consumers, memory, bytes or message_stats).' },
});
