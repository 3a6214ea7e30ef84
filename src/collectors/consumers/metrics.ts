import { defineMetrics } from '../../model/metric-def.js';

const g = 'gauge' as const;

export const consumerMetrics = defineMetrics('consumers', {
  byAckMode: {
    name: 'rabbitmq_consumers_by_ack_mode',
    type: g,
    labels: ['vhost', 'ack_mode'],
    help: 'Consumers by vhost and acknowledgement mode: manual (ack_required) or auto. Stream protocol subscriptions are listed as auto. The cluster total is rabbitmq_consumers.',
  },
  byPrefetch: {
    name: 'rabbitmq_consumers_by_prefetch',
    type: g,
    labels: ['vhost', 'prefetch'],
    help: 'Manual-ack consumers by vhost and prefetch limit, in ranges: unlimited (prefetch_count 0: unacknowledged messages can pile up in the consumer without bound), 1, 2-10, 11-100, 101-1000, over_1000.',
  },
  byActivity: {
    name: 'rabbitmq_consumers_by_activity',
    type: g,
    labels: ['vhost', 'activity_status'],
    help: 'Consumers by vhost and activity status: up, single_active (the active one of a single-active-consumer queue), waiting (its standbys), suspected_down.',
  },
  perQueue: {
    name: 'rabbitmq_queue_consumers_by_ack_mode',
    type: g,
    labels: ['vhost', 'queue', 'ack_mode'],
    help: 'Consumers of a queue by acknowledgement mode (manual or auto); one or two series per queue that has consumers. Left out when more queues have consumers than the collector\'s per_queue_limit.',
  },
});
