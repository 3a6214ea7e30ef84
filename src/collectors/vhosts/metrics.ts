import { defineMetrics } from '../../model/metric-def.js';

const c = 'counter' as const;
const g = 'gauge' as const;
const V = ['vhost'] as const;

export const vhostMetrics = defineMetrics('vhosts', {
  info: { name: 'rabbitmq_vhost_info', type: g, labels: ['vhost', 'default_queue_type', 'tags'], help: 'A virtual host and its settings; value 1.' },
  running: { name: 'rabbitmq_vhost_running', type: g, labels: ['vhost', 'node'], help: '1 when the vhost is running on the node, 0 otherwise (cluster_state).' },
  tracing: { source: { field: 'tracing' }, name: 'rabbitmq_vhost_tracing_enabled', type: g, labels: V, help: '1 when message tracing (firehose) is on for the vhost.' },
  messages: { source: { field: 'messages' }, name: 'rabbitmq_vhost_messages', type: g, labels: V, rate: true, help: 'Messages in the vhost\'s queues, ready plus unacknowledged.' },
  messagesReady: { source: { field: 'messages_ready' }, name: 'rabbitmq_vhost_messages_ready', type: g, labels: V, rate: true, help: 'Ready messages in the vhost\'s queues.' },
  messagesUnacked: { source: { field: 'messages_unacknowledged' }, name: 'rabbitmq_vhost_messages_unacked', type: g, labels: V, rate: true, help: 'Unacknowledged messages in the vhost\'s queues.' },
  received: { source: { field: 'recv_oct' }, name: 'rabbitmq_vhost_received_bytes_total', type: c, labels: V, rate: true, help: 'Bytes received by the vhost\'s connections (recv_oct).' },
  sent: { source: { field: 'send_oct' }, name: 'rabbitmq_vhost_sent_bytes_total', type: c, labels: V, rate: true, help: 'Bytes sent by the vhost\'s connections (send_oct).' },
  published: { source: { field: 'message_stats.publish' }, name: 'rabbitmq_vhost_messages_published_total', type: c, labels: V, rate: true, help: 'Messages published in the vhost (message_stats.publish).' },
  confirmed: { source: { field: 'message_stats.confirm' }, name: 'rabbitmq_vhost_messages_confirmed_total', type: c, labels: V, rate: true, help: 'Messages confirmed to publishers (message_stats.confirm).' },
  delivered: { source: { field: 'message_stats.deliver_get' }, name: 'rabbitmq_vhost_messages_delivered_or_got_total', type: c, labels: V, rate: true, help: 'Deliveries and gets in any ack mode (message_stats.deliver_get).' },
  deliveredAck: { source: { field: 'message_stats.deliver' }, name: 'rabbitmq_vhost_messages_delivered_ack_total', type: c, labels: V, rate: true, help: 'Deliveries in manual-ack mode (message_stats.deliver).' },
  deliveredNoAck: { source: { field: 'message_stats.deliver_no_ack' }, name: 'rabbitmq_vhost_messages_delivered_total', type: c, labels: V, rate: true, help: 'Deliveries in auto-ack mode (message_stats.deliver_no_ack).' },
  getAck: { source: { field: 'message_stats.get' }, name: 'rabbitmq_vhost_get_ack_total', type: c, labels: V, rate: true, help: 'basic.get in manual-ack mode (message_stats.get).' },
  getNoAck: { source: { field: 'message_stats.get_no_ack' }, name: 'rabbitmq_vhost_get_total', type: c, labels: V, rate: true, help: 'basic.get in auto-ack mode (message_stats.get_no_ack).' },
  getEmpty: { source: { field: 'message_stats.get_empty' }, name: 'rabbitmq_vhost_get_empty_total', type: c, labels: V, rate: true, help: 'basic.get on an empty queue (message_stats.get_empty).' },
  acked: { source: { field: 'message_stats.ack' }, name: 'rabbitmq_vhost_messages_acked_total', type: c, labels: V, rate: true, help: 'Acknowledgements (message_stats.ack).' },
  redelivered: { source: { field: 'message_stats.redeliver' }, name: 'rabbitmq_vhost_messages_redelivered_total', type: c, labels: V, rate: true, help: 'Redeliveries (message_stats.redeliver).' },
  returnedUnroutable: { source: { field: 'message_stats.return_unroutable' }, name: 'rabbitmq_vhost_messages_returned_unroutable_total', type: c, labels: V, rate: true, help: 'Returned as unroutable (message_stats.return_unroutable).' },
  droppedUnroutable: { source: { field: 'message_stats.drop_unroutable' }, name: 'rabbitmq_vhost_messages_dropped_unroutable_total', type: c, labels: V, rate: true, help: 'Dropped as unroutable (message_stats.drop_unroutable).' },
});
