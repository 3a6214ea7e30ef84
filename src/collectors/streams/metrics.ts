import { defineMetrics } from '../../model/metric-def.js';

const c = 'counter' as const;
const g = 'gauge' as const;
const PUBLISHER = ['vhost', 'stream', 'connection', 'publisher_id'] as const;
const CONSUMER = ['vhost', 'stream', 'connection', 'subscription_id'] as const;
const PER_STREAM = 'Only with per_stream.';

export const streamMetrics = defineMetrics('streams', {
  connections: {
    name: 'rabbitmq_stream_connections',
    type: g,
    labels: ['vhost'],
    help: 'Open stream protocol connections per vhost (/api/stream/connections; absent without the rabbitmq_stream_management plugin). They are also counted in rabbitmq_connections_by_state{protocol="stream"}.',
  },
  publishers: { name: 'rabbitmq_stream_publishers', type: g, labels: ['vhost'], help: 'Stream publishers per vhost (/api/stream/publishers).' },
  consumers: {
    name: 'rabbitmq_stream_consumers',
    type: g,
    labels: ['vhost'],
    help: 'Stream consumers (subscriptions) per vhost (/api/stream/consumers). They also appear in /api/consumers, as auto-ack consumers.',
  },

  publishersByStream: { option: 'per_stream', name: 'rabbitmq_stream_publishers_by_stream', type: g, labels: ['vhost', 'stream'], help: `Publishers of a stream. ${PER_STREAM}` },
  consumersByStream: { option: 'per_stream', name: 'rabbitmq_stream_consumers_by_stream', type: g, labels: ['vhost', 'stream'], help: `Consumers (subscriptions) of a stream. ${PER_STREAM}` },
  published: { source: { field: 'published' }, option: 'per_stream', name: 'rabbitmq_stream_publisher_published_total', type: c, labels: PUBLISHER, help: `Messages the publisher published to the stream (published). ${PER_STREAM}` },
  confirmed: { source: { field: 'confirmed' }, option: 'per_stream', name: 'rabbitmq_stream_publisher_confirmed_total', type: c, labels: PUBLISHER, help: `Messages confirmed to the publisher (confirmed). ${PER_STREAM}` },
  errored: { source: { field: 'errored' }, option: 'per_stream', name: 'rabbitmq_stream_publisher_errored_total', type: c, labels: PUBLISHER, help: `Messages of the publisher that failed (errored). ${PER_STREAM}` },
  credits: { source: { field: 'credits' }, option: 'per_stream', name: 'rabbitmq_stream_consumer_credits', type: g, labels: CONSUMER, help: `Credits the consumer has left: chunks the broker may still send it (credits); 0 for long means a stalled consumer. ${PER_STREAM}` },
  consumed: { source: { field: 'consumed' }, option: 'per_stream', name: 'rabbitmq_stream_consumer_consumed_total', type: c, labels: CONSUMER, help: `Messages delivered to the consumer (consumed). ${PER_STREAM}` },
  offset: { source: { field: 'offset' }, option: 'per_stream', name: 'rabbitmq_stream_consumer_offset', type: g, labels: CONSUMER, help: `Offset the consumer has reached in the stream (offset). ${PER_STREAM}` },
  offsetLag: { source: { field: 'offset_lag' }, option: 'per_stream', name: 'rabbitmq_stream_consumer_offset_lag', type: g, labels: CONSUMER, help: `Messages between the consumer's offset and the end of the stream (offset_lag). ${PER_STREAM}` },
});
