import { defineMetrics } from '../../model/metric-def.js';

const c = 'counter' as const;
const g = 'gauge' as const;
const VF = ['vhost', 'family'] as const;
const OVER = 'over the queues of the family in the vhost (collectors.queues.families; every queue of the watched vhosts, filtered or capped or not)';
const STATS = 'From the polls that fetch statistics, served unchanged in between; absent without statistics.';

/** Issue 29, roll-ups: per family of queues and vhost (families.ts), and queues by depth per vhost. */
export const familyMetrics = defineMetrics('queues', {
  familyQueues: { option: 'families', name: 'rabbitmq_queue_family_queues', type: g, labels: VF, help: `Queues ${OVER}.` },
  familyMessages: { option: 'families', name: 'rabbitmq_queue_family_messages', type: g, labels: VF, help: `Messages, ready plus unacknowledged, ${OVER}.` },
  familyMessagesReady: { option: 'families', name: 'rabbitmq_queue_family_messages_ready', type: g, labels: VF, help: `Ready messages ${OVER}.` },
  familyMessagesUnacked: { option: 'families', name: 'rabbitmq_queue_family_messages_unacked', type: g, labels: VF, help: `Unacknowledged messages ${OVER}.` },
  familyConsumers: { option: 'families', name: 'rabbitmq_queue_family_consumers', type: g, labels: VF, help: `Consumers ${OVER}; absent when the broker reports none (statistics disabled).` },
  familyPublished: { option: 'families', name: 'rabbitmq_queue_family_messages_published_total', type: c, labels: VF, help: `Messages published (message_stats.publish) ${OVER}; a deleted queue's last count stays in the total, so it never goes down. ${STATS}` },
  familyDeliveredOrGot: { option: 'families', name: 'rabbitmq_queue_family_messages_delivered_or_got_total', type: c, labels: VF, help: `Deliveries and gets in any ack mode (message_stats.deliver_get) ${OVER}; a deleted queue's last count stays in the total. ${STATS}` },
  familyAcked: { option: 'families', name: 'rabbitmq_queue_family_messages_acked_total', type: c, labels: VF, help: `Messages acknowledged (message_stats.ack) ${OVER}; a deleted queue's last count stays in the total. ${STATS}` },
  familyOldestHead: { option: 'families', name: 'rabbitmq_queue_family_oldest_head_message_timestamp_seconds', type: g, labels: VF, help: `The oldest head_message_timestamp (Unix time, as publishers set it) ${OVER}; time() minus it is the age of the oldest head message. Absent when no head message has a timestamp. ${STATS}` },
  rolledUp: { option: 'families', name: 'rabbitmq_queue_series_rolled_up', type: g, help: 'Queues whose per-queue series are not served because their family has per_queue off (collectors.queues.families; counted in their family\'s roll-ups and in the aggregates).' },
  byDepth: { option: 'families', name: 'rabbitmq_vhost_queues_by_depth', type: g, labels: ['vhost', 'depth'], help: 'Queues of the vhost by depth (messages, ready plus unacknowledged): depth is 0, 1-10, 11-100, 101-1000, 1001-10000, 10001-100000, 100001-999999 or 1000000+; every bucket is served, 0 when empty, and they sum to the vhost\'s queues with a count. Only with collectors.queues.families.' },
});
