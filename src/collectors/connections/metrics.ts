import { defineMetrics } from '../../model/metric-def.js';

const c = 'counter' as const;
const g = 'gauge' as const;
/** Aggregates: one series per combination seen among the open connections. */
const GROUP_STATE = ['vhost', 'user', 'protocol', 'node', 'state'] as const;
const GROUP = ['vhost', 'user', 'protocol', 'node'] as const;
/** Aggregates by client host (option by_peer_host): which hosts hold the connections. */
const PEER_STATE = ['vhost', 'user', 'node', 'peer_host', 'state'] as const;
const PEER = ['vhost', 'user', 'node', 'peer_host'] as const;
/** kbudde's connections module is these aggregates, under its names and label order. */
const KBUDDE_PEER = ['cluster', 'vhost', 'node', 'peer_host', 'user', 'self'];
const kbuddePeer = (name: string) => ({ kbudde: { name, labels: KBUDDE_PEER } });
const BY_PEER = 'Summed over the open connections from one client host (peer_host) per vhost, user and node, from /api/connections. Only with by_peer_host.';
/** Per-connection series (option per_connection). */
const CONN = ['connection', 'vhost', 'user'] as const;

const SUM = 'Summed over the open connections of the group, from /api/connections.';
const NOT_A_COUNTER =
  'Not a counter: the sum drops when a connection closes, so do not apply rate() to it; use the _per_second gauge, or per_connection mode for true counters.';

export const connectionMetrics = defineMetrics('connections', {
  byState: {
    name: 'rabbitmq_connections_by_state',
    type: g,
    labels: GROUP_STATE,
    help: 'Open client connections by vhost, user, protocol, node and state (running, flow, blocking, blocked, ...). With management statistics disabled only vhost, user and node are known; protocol and state are then empty. The cluster total is rabbitmq_connections.',
  },
  channels: {
    name: 'rabbitmq_connections_channels',
    type: g,
    labels: GROUP_STATE,
    help: `Channels open on the connections of the group (sum of their channels field). ${SUM}`,
  },
  incomingBytes: {
    name: 'rabbitmq_connections_incoming_bytes',
    type: g,
    labels: GROUP,
    help: `Bytes received by the broker on the open connections of the group since each opened (recv_oct). ${SUM} ${NOT_A_COUNTER}`,
  },
  outgoingBytes: {
    name: 'rabbitmq_connections_outgoing_bytes',
    type: g,
    labels: GROUP,
    help: `Bytes sent by the broker on the open connections of the group since each opened (send_oct). ${SUM} ${NOT_A_COUNTER}`,
  },
  incomingPackets: {
    name: 'rabbitmq_connections_incoming_packets',
    type: g,
    labels: GROUP,
    help: `Packets received on the open connections of the group since each opened (recv_cnt). ${SUM} ${NOT_A_COUNTER}`,
  },
  outgoingPackets: {
    name: 'rabbitmq_connections_outgoing_packets',
    type: g,
    labels: GROUP,
    help: `Packets sent on the open connections of the group since each opened (send_cnt). ${SUM} ${NOT_A_COUNTER}`,
  },
  incomingBytesRate: {
    name: 'rabbitmq_connections_incoming_bytes_per_second',
    type: g,
    labels: GROUP,
    help: `Bytes per second received on the open connections of the group, as the management API computes it over its sampling window (sum of recv_oct_details.rate). ${SUM}`,
  },
  outgoingBytesRate: {
    name: 'rabbitmq_connections_outgoing_bytes_per_second',
    type: g,
    labels: GROUP,
    help: `Bytes per second sent on the open connections of the group, as the management API computes it over its sampling window (sum of send_oct_details.rate). ${SUM}`,
  },
  sendPending: {
    name: 'rabbitmq_connections_send_pending_bytes',
    type: g,
    labels: GROUP,
    help: `Bytes queued in the sockets of the group's connections, waiting to be sent (send_pend; rabbitmq_prometheus calls it pending packets, but inet counts bytes). Persistently above 0: slow clients or network. ${SUM}`,
  },

  byPeerHost: {
    option: 'by_peer_host', name: 'rabbitmq_connections_by_peer_host',
    names: { kbudde: { name: 'rabbitmq_connection_status', labels: ['cluster', 'vhost', 'node', 'peer_host', 'user', 'state', 'self'] } },
    type: g,
    labels: PEER_STATE,
    help: 'Open client connections by client host (peer_host), vhost, user, node and state. Only with by_peer_host: one series per client host and state, mind the cardinality with many client hosts.',
  },
  peerChannels: { option: 'by_peer_host', name: 'rabbitmq_connections_by_peer_host_channels', names: kbuddePeer('rabbitmq_connection_channels'), type: g, labels: PEER, help: `Channels open on the connections (sum of their channels field). ${BY_PEER}` },
  peerIncomingBytes: { option: 'by_peer_host', name: 'rabbitmq_connections_by_peer_host_incoming_bytes', names: kbuddePeer('rabbitmq_connection_received_bytes'), type: g, labels: PEER, help: `Bytes received by the broker on the open connections since each opened (recv_oct). ${BY_PEER} ${NOT_A_COUNTER}` },
  peerOutgoingBytes: { option: 'by_peer_host', name: 'rabbitmq_connections_by_peer_host_outgoing_bytes', names: kbuddePeer('rabbitmq_connection_send_bytes'), type: g, labels: PEER, help: `Bytes sent by the broker on the open connections since each opened (send_oct). ${BY_PEER} ${NOT_A_COUNTER}` },
  peerIncomingPackets: { option: 'by_peer_host', name: 'rabbitmq_connections_by_peer_host_incoming_packets', names: kbuddePeer('rabbitmq_connection_received_packets'), type: g, labels: PEER, help: `Packets received on the open connections since each opened (recv_cnt). ${BY_PEER} ${NOT_A_COUNTER}` },
  peerOutgoingPackets: { option: 'by_peer_host', name: 'rabbitmq_connections_by_peer_host_outgoing_packets', names: kbuddePeer('rabbitmq_connection_send_packets'), type: g, labels: PEER, help: `Packets sent on the open connections since each opened (send_cnt). ${BY_PEER} ${NOT_A_COUNTER}` },
  peerSendPending: { option: 'by_peer_host', name: 'rabbitmq_connections_by_peer_host_send_pending_bytes', names: kbuddePeer('rabbitmq_connection_send_pending'), type: g, labels: PEER, help: `Bytes queued in the sockets of the connections, waiting to be sent (send_pend). ${BY_PEER}` },

  byClient: {
    option: 'by_client', name: 'rabbitmq_connections_by_client',
    type: g,
    labels: ['vhost', 'user', 'client_product', 'client_version', 'client_platform'],
    help:
      'Open client connections by the client library they announce (client_properties product, version and platform) per vhost and user, from /api/connections at each poll. ' +
      'Each property serves at most connections.client_values_max distinct values (those already served keep their place while connections have them; then the commonest); ' +
      'the connections with any other value are counted under "other". A property the client did not send is "". Only with by_client. ' +
      'With management statistics disabled the family is absent (measured: 3.10.8 and 4.0.5 list the connections without client properties, 4.3.6 lists none).',
  },

  info: {
    option: 'per_connection', name: 'rabbitmq_connection_info',
    type: g,
    labels: ['connection', 'vhost', 'user', 'node', 'protocol', 'type', 'peer_host', 'client_name', 'client_product', 'client_version', 'auth_mechanism', 'ssl'],
    help: 'One open connection and its metadata (client_name is the name the client gave, client_product and client_version its client_properties); value 1. Only with per_connection.',
  },
  state: {
    option: 'per_connection', name: 'rabbitmq_connection_state',
    type: g,
    labels: ['connection', 'vhost', 'user', 'state'],
    help: 'The state of an open connection (running, flow, blocking, blocked, ...); value 1. Only with per_connection.',
  },
  connChannels: { source: { field: 'channels' }, option: 'per_connection', name: 'rabbitmq_connection_channels', type: g, labels: CONN, help: 'Channels open on the connection. Only with per_connection.' },
  connIncomingBytes: {
    source: { field: 'recv_oct' },
    option: 'per_connection', name: 'rabbitmq_connection_incoming_bytes_total',
    type: c,
    labels: CONN,
    rate: true,
    help: 'Bytes received by the broker on the connection (recv_oct). Only with per_connection.',
  },
  connOutgoingBytes: {
    source: { field: 'send_oct' },
    option: 'per_connection', name: 'rabbitmq_connection_outgoing_bytes_total',
    type: c,
    labels: CONN,
    rate: true,
    help: 'Bytes sent by the broker on the connection (send_oct). Only with per_connection.',
  },
  connIncomingPackets: { source: { field: 'recv_cnt' }, option: 'per_connection', name: 'rabbitmq_connection_incoming_packets_total', type: c, labels: CONN, help: 'Packets received on the connection (recv_cnt). Only with per_connection.' },
  connOutgoingPackets: { source: { field: 'send_cnt' }, option: 'per_connection', name: 'rabbitmq_connection_outgoing_packets_total', type: c, labels: CONN, help: 'Packets sent on the connection (send_cnt). Only with per_connection.' },
  connSendPending: {
    source: { field: 'send_pend' },
    option: 'per_connection', name: 'rabbitmq_connection_send_pending_bytes',
    type: g,
    labels: CONN,
    help: 'Bytes queued in the connection\'s socket, waiting to be sent (send_pend). Only with per_connection.',
  },
  connConnectedAt: {
    // Milliseconds since the epoch.
    source: { field: 'connected_at', scale: 0.001 },
    option: 'per_connection', name: 'rabbitmq_connection_connected_at_timestamp_seconds',
    type: g,
    labels: CONN,
    help: 'When the connection was opened (Unix time, from connected_at). Only with per_connection.',
  },
});
