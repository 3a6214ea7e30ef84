import { exporterMetrics } from '../../src/collectors/exporter/metrics.js';
import { healthMetrics } from '../../src/collectors/health-checks/metrics.js';
import { nodeMetrics } from '../../src/collectors/nodes/metrics.js';
import { overviewMetrics as o } from '../../src/collectors/overview/metrics.js';
import type { DashboardSpec } from './grafana.js';
import { matcherText, DASHBOARD_SCOPE, scoped, scopedRate } from './promql.js';

const n = nodeMetrics;

export const overviewDashboard: DashboardSpec = {
  uid: 'rabbitmq-exporter-overview',
  title: 'RabbitMQ / Overview',
  description: 'Is everything up, how many messages wait, how fast they move, and how much headroom the nodes have.',
  variables: [],
  fill(l) {
    l.row('Status')
      .stat({
        title: 'Exporter scraped',
        description: 'Prometheus\'s own `up` for the exporter\'s target: 1 when the last scrape succeeded.',
        unit: 'none',
        span: 3,
        targets: [{ expr: `min(up${matcherText(DASHBOARD_SCOPE)})` }],
      })
      .stat({
        title: 'Broker reachable',
        description: `${exporterMetrics.up.name}: ${exporterMetrics.up.help}`,
        unit: 'none',
        span: 3,
        targets: [{ expr: `min(${scoped(exporterMetrics.up)})` }],
      })
      .stat({
        title: 'Nodes running',
        description: 'Nodes running / nodes the cluster knows.',
        unit: 'short',
        span: 3,
        targets: [
          { expr: `sum(${scoped(n.running)})`, legend: 'running' },
          { expr: `count(${scoped(n.running)})`, legend: 'known' },
        ],
      })
      .stat({
        title: 'Health checks failing',
        description: 'Health checks of the management API that answered 503 at the last poll (see the exporter\'s log for the reason).',
        unit: 'short',
        span: 3,
        targets: [{ expr: `sum(1 - ${scoped(healthMetrics.checkUp)})` }],
      })
      .stat({
        title: 'Resource alarms',
        description: 'Memory and disk alarms raised, over all nodes. While one is raised, publishers are blocked.',
        unit: 'short',
        span: 3,
        targets: [{ expr: `sum(${scoped(n.memAlarm)}) + sum(${scoped(n.diskAlarm)})` }],
      })
      .stat({
        title: 'Partitioned nodes',
        description: `Highest ${n.partitions.name} of any node: anything above 0 is a network partition.`,
        unit: 'short',
        span: 3,
        targets: [{ expr: `max(${scoped(n.partitions)})` }],
      })
      .stat({
        title: 'Collectors failing',
        description: 'Collectors whose last poll failed; their data age until withdrawn (see the Exporter dashboard).',
        unit: 'short',
        span: 3,
        targets: [{ expr: `sum(1 - ${scoped(exporterMetrics.collectorSuccess)})` }],
      })
      .stat({
        title: 'RabbitMQ version',
        description: 'Versions the broker reports.',
        unit: 'none',
        span: 3,
        targets: [{ expr: scoped(o.build), legend: '{{rabbitmq_version}} / Erlang {{erlang_version}}' }],
      });

    l.row('Messages')
      .timeseries({
        title: 'Messages ready and unacknowledged',
        description: 'Messages waiting in all queues for a consumer (ready), and delivered but not yet acknowledged (unacked).',
        unit: 'short',
        stacked: true,
        targets: [
          { expr: scoped(o.messagesReady), legend: 'ready' },
          { expr: scoped(o.messagesUnacked), legend: 'unacked' },
        ],
      })
      .timeseries({
        title: 'Message rates',
        description: 'Messages per second published into the broker, delivered (to consumers and basic.get), acknowledged, redelivered after a requeue, and unroutable (returned to publishers or dropped).',
        unit: 'mps',
        targets: [
          { expr: scopedRate(o.received), legend: 'published' },
          { expr: scopedRate(o.receivedConfirm), legend: 'confirmed' },
          { expr: scopedRate(o.delivered), legend: 'delivered' },
          { expr: scopedRate(o.acknowledged), legend: 'acknowledged' },
          { expr: scopedRate(o.redelivered), legend: 'redelivered' },
          { expr: scopedRate(o.unroutableReturned), legend: 'unroutable returned' },
          { expr: scopedRate(o.unroutableDropped), legend: 'unroutable dropped' },
        ],
      });

    l.row('Connections, channels and consumers')
      .timeseries({
        title: 'Connections, channels, consumers, queues',
        description: 'Objects open in the cluster.',
        unit: 'short',
        targets: [
          { expr: scoped(o.connections), legend: 'connections' },
          { expr: scoped(o.channels), legend: 'channels' },
          { expr: scoped(o.consumers), legend: 'consumers' },
          { expr: scoped(o.queues), legend: 'queues' },
        ],
      })
      .timeseries({
        title: 'Churn',
        description: 'Connections and channels opened and closed, queues created and deleted, per second. High churn costs the broker more than steady traffic.',
        unit: 'cps',
        targets: [
          { expr: scopedRate(o.connectionsOpened), legend: 'connections opened' },
          { expr: scopedRate(o.connectionsClosed), legend: 'connections closed' },
          { expr: scopedRate(o.channelsOpened), legend: 'channels opened' },
          { expr: scopedRate(o.channelsClosed), legend: 'channels closed' },
          { expr: scopedRate(o.queuesCreated), legend: 'queues created' },
          { expr: scopedRate(o.queuesDeleted), legend: 'queues deleted' },
        ],
      });

    l.row('Node headroom')
      .timeseries({
        title: 'Memory used / high watermark',
        description: 'Memory each node uses as a fraction of its high watermark; at 100 % the memory alarm blocks publishers.',
        unit: 'percentunit',
        span: 8,
        targets: [{ expr: `${scoped(n.memUsed)} / ${scoped(n.memLimit)}`, legend: '{{node}}' }],
      })
      .timeseries({
        title: 'Disk free above the alarm limit',
        description: 'Free disk space on each node\'s data partition minus the limit below which the disk alarm blocks publishers.',
        unit: 'bytes',
        span: 8,
        targets: [{ expr: `${scoped(n.diskFree)} - ${scoped(n.diskFreeLimit)}`, legend: '{{node}}' }],
      })
      .timeseries({
        title: 'File descriptors used',
        description: 'Open file descriptors as a fraction of the node\'s limit; connections and queue files both use them.',
        unit: 'percentunit',
        span: 8,
        targets: [{ expr: `${scoped(n.fdUsed)} / ${scoped(n.fdTotal)}`, legend: '{{node}}' }],
      });
  },
};
