import { defineMetrics } from '../../model/metric-def.js';

const c = 'counter' as const;
const E = ['vhost', 'exchange'] as const;

export const exchangeMetrics = defineMetrics('exchanges', {
  info: { name: 'rabbitmq_exchange_info', type: 'gauge', labels: ['vhost', 'exchange', 'type', 'durable', 'auto_delete', 'internal'], help: 'An exchange and its flags; value 1. The default exchange has exchange="".' },
  publishedIn: { source: { field: 'message_stats.publish_in' }, name: 'rabbitmq_exchange_messages_published_in_total', names: { kbudde: { name: 'rabbitmq_exchange_messages_published_in_total', labels: ['cluster', 'vhost', 'exchange'] } }, type: c, labels: E, rate: true, help: 'Messages published into the exchange (message_stats.publish_in).' },
  publishedOut: { source: { field: 'message_stats.publish_out' }, name: 'rabbitmq_exchange_messages_published_out_total', names: { kbudde: { name: 'rabbitmq_exchange_messages_published_out_total', labels: ['cluster', 'vhost', 'exchange'] } }, type: c, labels: E, rate: true, help: 'Messages routed out of the exchange to queues or exchanges (message_stats.publish_out).' },
  confirmed: { source: { field: 'message_stats.confirm' }, name: 'rabbitmq_exchange_messages_confirmed_total', names: { kbudde: { name: 'rabbitmq_exchange_messages_confirmed_total', labels: ['cluster', 'vhost', 'exchange'] } }, type: c, labels: E, rate: true, help: 'Messages published into the exchange and confirmed (message_stats.confirm).' },
  returnedUnroutable: { source: { field: 'message_stats.return_unroutable' }, name: 'rabbitmq_exchange_messages_returned_unroutable_total', names: { kbudde: { name: 'rabbitmq_exchange_messages_returned_total', labels: ['cluster', 'vhost', 'exchange'] } }, type: c, labels: E, rate: true, help: 'Mandatory messages returned as unroutable (message_stats.return_unroutable).' },
  droppedUnroutable: { source: { field: 'message_stats.drop_unroutable' }, name: 'rabbitmq_exchange_messages_dropped_unroutable_total', type: c, labels: E, rate: true, help: 'Messages dropped as unroutable (message_stats.drop_unroutable).' },
  vhostExchanges: { name: 'rabbitmq_vhost_exchanges', type: 'gauge', labels: ['vhost', 'type'], help: 'Exchanges per vhost and type, filtered or not.' },
  vhostBindings: { name: 'rabbitmq_vhost_bindings', type: 'gauge', labels: ['vhost', 'destination_type'], help: 'Bindings per vhost, to queues or to exchanges.' },
  bindingsAge: { name: 'rabbitmq_vhost_bindings_age_seconds', type: 'gauge', unit: 'seconds', help: 'Age of the binding counts served at the exchange collector\'s last poll: /api/bindings is fetched every collectors.exchanges.bindings_every polls and its counts served unchanged in between; 0 when that poll fetched them.' },
  seriesFiltered: { name: 'rabbitmq_exchange_series_filtered', type: 'gauge', help: 'Exchanges whose per-exchange series were left out by the include/exclude filters.' },
});
