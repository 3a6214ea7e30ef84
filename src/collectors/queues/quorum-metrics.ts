import { defineMetrics } from '../../model/metric-def.js';

const g = 'gauge' as const;
const FROM = 'Counted over every quorum queue of the vhost in the queue list of this poll (before the queue filters and the cap), from each record\'s leader, members and online fields. Only with quorum_placement.';

/** Issue 26, signal 5: where quorum queues' leaders and replicas are, and which lack members. */
export const quorumMetrics = defineMetrics('queues', {
  leaders: {
    option: 'quorum_placement', name: 'rabbitmq_quorum_queue_leaders',
    type: g,
    labels: ['vhost', 'node'],
    help: `Quorum queues whose leader is on the node (their leader field), per vhost; 0 for a node that holds replicas of the vhost's quorum queues but leads none (after a restart leaders stay where they moved until rebalanced). ${FROM}`,
  },
  replicas: {
    option: 'quorum_placement', name: 'rabbitmq_quorum_queue_replicas',
    type: g,
    labels: ['vhost', 'node'],
    help: `Quorum queue replicas (members) hosted by the node, per vhost. ${FROM}`,
  },
  withoutLeader: {
    option: 'quorum_placement', name: 'rabbitmq_quorum_queues_without_leader',
    type: g,
    labels: ['vhost'],
    help: `Quorum queues whose record names no leader (empty or absent leader field). ${FROM}`,
  },
  belowQuorum: {
    option: 'quorum_placement', name: 'rabbitmq_quorum_queues_below_quorum',
    type: g,
    labels: ['vhost'],
    help: `Quorum queues with fewer members online than a majority of their members (online < floor(members / 2) + 1): they accept no writes until members return. ${FROM}`,
  },
  belowTarget: {
    option: 'quorum_placement', name: 'rabbitmq_quorum_queues_below_target_size',
    type: g,
    labels: ['vhost'],
    help:
      `Quorum queues with fewer members than their target size: the queue's x-quorum-initial-group-size argument, else the setting quorum_target_size (the broker's quorum_cluster_size, default 3, which the management API does not show), ` +
      `at most the number of nodes in the cluster (GET /api/nodes?columns=name at each poll; absent when that request fails). ${FROM}`,
  },
});
