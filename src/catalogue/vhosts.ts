import { defineMetrics } from '../metrics/metric-def.js';

const c = 'counter' as const;
const g = 'gauge' as const;
const V = ['vhost'] as const;

export const vhostMetrics = defineMetrics('vhosts', {
  info: { name: 'rabbitmq_vhost_info', type: g, labels: ['vhost', 'default_queue_type', 'tags'], help: 'A virtual host and its settings; value 1.' },
  running: { name: 'rabbitmq_vhost_running', type: g, labels: ['vhost', 'node'], help: '1 when the vhost is running on the node, 0 otherwise (cluster_state).' },
  tracing: { name: 'rabbitmq_vhost_tracing_enabled', type: g, labels: V, help: '1 when message tracing (firehose) is on for the vhost.' },
  messages: { name: 'rabbitmq_vhost_messages', type: g, labels: V, rate: true, help: 'Messages in the vhost\'s queues, ready plus unacknowledged.' },
  messagesReady: { name: 'rabbitmq_vhost_messages_ready', type: g, labels: V, rate: true, help: 'Ready messages in the vhost\'s queues.' },
  messagesUnacked: { name: 'rabbitmq_vhost_messages_unacked', type: g, labels: V, rate: true, help: 'Unacknowledged messages in the vhost\'s queues.' },
  received: { name: 'rabbitmq_vhost_received_bytes_total', type: c, labels: V, rate: true, help: 'Bytes received by the vhost\'s connections (recv_oct).' },
  sent: { name: 'rabbitmq_vhost_sent_bytes_total', type: c, labels: V, rate: true, help: 'Bytes sent by the vhost\'s connections (send_oct).' },
  published: { name: 'rabbitmq_vhost_messages_published_total', type: c, labels: V, rate: true, help: 'Messages published in the vhost (message_stats.publish).' },
  confirmed: { name: 'rabbitmq_vhost_messages_confirmed_total', type: c, labels: V, rate: true, help: 'Messages confirmed to publishers (message_stats.confirm).' },
  delivered: { name: 'rabbitmq_vhost_messages_delivered_or_got_total', type: c, labels: V, rate: true, help: 'Deliveries and gets in any ack mode (message_stats.deliver_get).' },
  deliveredAck: { name: 'rabbitmq_vhost_messages_delivered_ack_total', type: c, labels: V, rate: true, help: 'Deliveries in manual-ack mode (message_stats.deliver).' },
  deliveredNoAck: { name: 'rabbitmq_vhost_messages_delivered_total', type: c, labels: V, rate: true, help: 'Deliveries in auto-ack mode (message_stats.deliver_no_ack).' },
  getAck: { name: 'rabbitmq_vhost_get_ack_total', type: c, labels: V, rate: true, help: 'basic.get in manual-ack mode (message_stats.get).' },
  getNoAck: { name: 'rabbitmq_vhost_get_total', type: c, labels: V, rate: true, help: 'basic.get in auto-ack mode (message_stats.get_no_ack).' },
  getEmpty: { name: 'rabbitmq_vhost_get_empty_total', type: c, labels: V, rate: true, help: 'basic.get on an empty queue (message_stats.get_empty).' },
  acked: { name: 'rabbitmq_vhost_messages_acked_total', type: c, labels: V, rate: true, help: 'Acknowledgements (message_stats.ack).' },
  redelivered: { name: 'rabbitmq_vhost_messages_redelivered_total', type: c, labels: V, rate: true, help: 'Redeliveries (message_stats.redeliver).' },
  returnedUnroutable: { name: 'rabbitmq_vhost_messages_returned_unroutable_total', type: c, labels: V, rate: true, help: 'Returned as unroutable (message_stats.return_unroutable).' },
  droppedUnroutable: { name: 'rabbitmq_vhost_messages_dropped_unroutable_total', type: c, labels: V, rate: true, help: 'Dropped as unroutable (message_stats.drop_unroutable).' },
});
