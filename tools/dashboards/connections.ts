import { channelMetrics, channelMessageStats } from '../../src/collectors/channels/metrics.js';
import { connectionMetrics as c } from '../../src/collectors/connections/metrics.js';
import { consumerMetrics } from '../../src/collectors/consumers/metrics.js';
import { limitsMetrics } from '../../src/collectors/limits/metrics.js';
import { streamMetrics } from '../../src/collectors/streams/metrics.js';
import { vhostMetrics } from '../../src/collectors/vhosts/metrics.js';
import type { DashboardSpec } from './grafana.js';
import { scoped, scopedRate, sumBy } from './promql.js';

const V = { vhost: '=~$vhost' };
const conns = (by: string) => sumBy([by], c.byState, scoped(c.byState, V));

function stat(field: string) {
  const found = channelMessageStats.find((s) => s.field === field);
  if (!found) throw new Error(`no channel message stat ${field}`);
  return found;
}

export const connectionsDashboard: DashboardSpec = {
  uid: 'rabbitmq-exporter-connections',
  title: 'RabbitMQ / Connections and channels',
  description: 'Connections and channels by vhost, user, protocol and state; bytes; unacknowledged, unconfirmed and prefetch; streams; limits.',
  variables: ['vhost'],
  fill(l) {
    l.row('Connections')
      .timeseries({ title: 'Connections by vhost', description: 'Open client connections per vhost.', unit: 'short', span: 6, targets: [{ expr: conns('vhost'), legend: '{{vhost}}' }] })
      .timeseries({ title: 'Connections by user', description: 'Open client connections per user.', unit: 'short', span: 6, targets: [{ expr: conns('user'), legend: '{{user}}' }] })
      .timeseries({ title: 'Connections by protocol', description: 'Open client connections per protocol (AMQP 0-9-1, AMQP 1.0, MQTT, STOMP, stream, ...).', unit: 'short', span: 6, targets: [{ expr: conns('protocol'), legend: '{{protocol}}' }] })
      .timeseries({
        title: 'Connections by state',
        description: 'Open client connections per state: flow, blocking and blocked mean the broker throttles publishers.',
        unit: 'short',
        span: 6,
        targets: [{ expr: conns('state'), legend: '{{state}}' }],
      })
      .timeseries({
        title: 'Bytes received and sent',
        description: 'Bytes per second received from and sent to the clients of each vhost.',
        unit: 'Bps',
        targets: [
          { expr: scopedRate(vhostMetrics.received, V), legend: 'received {{vhost}}' },
          { expr: scopedRate(vhostMetrics.sent, V), legend: 'sent {{vhost}}' },
        ],
      })
      .timeseries({
        title: 'Bytes waiting in sockets',
        description: 'Bytes queued in the connections\' sockets waiting to be sent; persistently above 0 means slow clients or network.',
        unit: 'bytes',
        targets: [{ expr: sumBy(['vhost'], c.sendPending, scoped(c.sendPending, V)), legend: '{{vhost}}' }],
      })
      .table({
        title: 'Connections by client library',
        description: 'Open connections per client product, version and platform as the clients announce them (connections.by_client): which applications run an old client library before an upgrade. "other" counts the values beyond client_values_max.',
        unit: 'short',
        span: 24,
        targets: [{ expr: sumBy(['vhost', 'user', 'client_product', 'client_version', 'client_platform'], c.byClient, scoped(c.byClient, V)) }],
      });

    l.row('Channels')
      .timeseries({
        title: 'Channels by vhost and state',
        description: 'Open channels per vhost and state.',
        unit: 'short',
        targets: [{ expr: scoped(channelMetrics.byState, V), legend: '{{vhost}} {{state}}' }],
      })
      .timeseries({
        title: 'Unacknowledged, unconfirmed, uncommitted',
        description: 'Messages delivered on the vhost\'s channels and not yet acknowledged, published and not yet confirmed, and received in transactions not yet committed.',
        unit: 'short',
        targets: [
          { expr: scoped(channelMetrics.unacked, V), legend: 'unacked {{vhost}}' },
          { expr: scoped(channelMetrics.unconfirmed, V), legend: 'unconfirmed {{vhost}}' },
          { expr: scoped(channelMetrics.uncommitted, V), legend: 'uncommitted {{vhost}}' },
        ],
      })
      .timeseries({
        title: 'Prefetch',
        description: 'Sum of the channels\' prefetch limits per vhost (0, unlimited, adds nothing; see consumers by prefetch).',
        unit: 'short',
        span: 8,
        targets: [{ expr: scoped(channelMetrics.prefetch, V), legend: '{{vhost}}' }],
      })
      .timeseries({
        title: 'Consumers by prefetch',
        description: 'Manual-ack consumers per prefetch range; "unlimited" consumers can pile up unacknowledged messages without bound.',
        unit: 'short',
        span: 8,
        targets: [{ expr: scoped(consumerMetrics.byPrefetch, V), legend: '{{vhost}} {{prefetch}}' }],
      })
      .timeseries({
        title: 'Consumers by ack mode',
        description: 'Consumers per vhost and acknowledgement mode.',
        unit: 'short',
        span: 8,
        targets: [{ expr: scoped(consumerMetrics.byAckMode, V), legend: '{{vhost}} {{ack_mode}}' }],
      })
      .timeseries({
        title: 'Channel message rates',
        description: 'Messages per second on the vhost\'s open channels, as the management API computes them (publish, confirm, deliver, ack).',
        unit: 'mps',
        targets: (['publish', 'confirm', 'deliver', 'ack'] as const).map((f) => ({ expr: scoped(stat(f).rate, V), legend: `${f} {{vhost}}` })),
      });

    l.row('Streams')
      .timeseries({
        title: 'Stream connections, publishers and consumers',
        description: 'Stream protocol connections, publishers and consumers per vhost (rabbitmq_stream_management plugin).',
        unit: 'short',
        targets: [
          { expr: scoped(streamMetrics.connections, V), legend: 'connections {{vhost}}' },
          { expr: scoped(streamMetrics.publishers, V), legend: 'publishers {{vhost}}' },
          { expr: scoped(streamMetrics.consumers, V), legend: 'consumers {{vhost}}' },
        ],
      });

    l.row('Limits')
      .table({
        title: 'Vhost limits used',
        description: 'Connections per vhost as a fraction of its max-connections limit (vhosts with a limit only).',
        unit: 'percentunit',
        span: 12,
        targets: [
          {
            expr: `${conns('vhost')} / on (vhost) group_right ${scoped(limitsMetrics.vhostLimit, { ...V, limit: 'max-connections' })}`,
          },
        ],
      })
      .table({
        title: 'User limits used',
        description: 'Connections per user as a fraction of its max-connections limit (users with a limit only).',
        unit: 'percentunit',
        span: 12,
        targets: [{ expr: `${conns('user')} / on (user) group_right ${scoped(limitsMetrics.userLimit, { limit: 'max-connections' })}` }],
      });
  },
};
