import { defineMetrics } from '../../model/metric-def.js';

/** A link is identified by its vhost, its upstream and the local exchange or queue it feeds (the other label is empty). */
const LINK = ['vhost', 'upstream', 'exchange', 'queue'] as const;

/** States the federation plugin reports for a link; one series each in rabbitmq_federation_link_state. */
export const FEDERATION_LINK_STATES = ['starting', 'running', 'error', 'shutdown'] as const;

export const federationMetrics = defineMetrics('federation', {
  linkUp: {
    name: 'rabbitmq_federation_link_up',
    type: 'gauge',
    labels: LINK,
    help: '1 when the federation link is running, 0 in any other state (starting, error, shutdown), from /api/federation-links.',
  },
  linkState: {
    name: 'rabbitmq_federation_link_state',
    type: 'gauge',
    labels: [...LINK, 'state'],
    help: `The link's state as a set: one series per state (${FEDERATION_LINK_STATES.join(', ')}, plus any other state the broker reports), 1 for the current one, 0 for the others.`,
  },
  linkInfo: {
    name: 'rabbitmq_federation_link_info',
    // kbudde's state family is this one without upstream (links of two upstreams into one exchange
    // fold into one series, the first served): value 1, the status a label, read from the record.
    names: { kbudde: { name: 'rabbitmq_federation_state', labels: ['cluster', 'vhost', 'node', 'queue', 'exchange', 'self', 'status'], fields: { status: 'status' } } },
    type: 'gauge',
    labels: [...LINK, 'type', 'upstream_exchange', 'upstream_queue', 'node'],
    help: 'A federation link and its metadata, which may change (node is where the link runs); value 1.',
  },
  links: {
    name: 'rabbitmq_federation_links',
    type: 'gauge',
    labels: ['status'],
    help: 'Federation links in the cluster by status (the name and meaning of rabbitmq_federation_prometheus\'s per-node family).',
  },
});
