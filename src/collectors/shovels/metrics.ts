import { defineMetrics } from '../../model/metric-def.js';

/** A shovel is identified by its vhost (empty for static shovels) and its name. */
const SHOVEL = ['vhost', 'shovel'] as const;

/**
 * States /api/shovels reports: starting, running and terminated; from 3.13 a running shovel
 * reports its flow-control status instead of running: running, flow or blocked.
 */
export const SHOVEL_STATES = ['starting', 'running', 'flow', 'blocked', 'terminated'] as const;

export const shovelMetrics = defineMetrics('shovels', {
  up: {
    name: 'rabbitmq_shovel_up',
    type: 'gauge',
    labels: SHOVEL,
    help: '1 when the shovel\'s worker is running (state running, or from 3.13 flow or blocked, which running shovels report instead), 0 when starting or terminated.',
  },
  state: {
    name: 'rabbitmq_shovel_state',
    type: 'gauge',
    labels: [...SHOVEL, 'state'],
    help: `The shovel's state as a set: one series per state (${SHOVEL_STATES.join(', ')}, plus any other state the broker reports), 1 for the current one, 0 for the others.`,
  },
  info: {
    name: 'rabbitmq_shovel_info',
    // kbudde's state family is this one: value 1, the current state a label, read from the record.
    names: { kbudde: { name: 'rabbitmq_shovel_state', labels: ['cluster', 'vhost', 'shovel', 'type', 'self', 'state'], fields: { state: 'state' } } },
    type: 'gauge',
    labels: [...SHOVEL, 'type', 'node', 'src_protocol', 'dest_protocol'],
    help: 'A shovel and its metadata, which may change (node is where it runs; protocols are known while it runs); type is dynamic or static; value 1.',
  },
  forwarded: {
    source: { field: 'forwarded' },
    name: 'rabbitmq_shovel_forwarded_messages_total',
    type: 'counter',
    labels: SHOVEL,
    help: 'Messages the shovel has forwarded since its worker started (RabbitMQ 4.1+; restarts from 0 when the shovel restarts).',
  },
  pending: {
    source: { field: 'pending' },
    name: 'rabbitmq_shovel_pending_messages',
    type: 'gauge',
    labels: SHOVEL,
    help: 'Messages the shovel holds, waiting to be published to its destination (RabbitMQ 4.1+).',
  },
  dynamic: {
    name: 'rabbitmq_shovel_dynamic',
    type: 'gauge',
    labels: ['status'],
    help: 'Dynamic shovels in the cluster by state (the name and meaning of rabbitmq_shovel_prometheus\'s per-node family).',
  },
  static: {
    name: 'rabbitmq_shovel_static',
    type: 'gauge',
    labels: ['status'],
    help: 'Static shovels in the cluster by state (the name and meaning of rabbitmq_shovel_prometheus\'s per-node family).',
  },
});
