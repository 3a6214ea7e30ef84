// Panels of issue 26's cluster signals on the nodes dashboard: quorum queue placement and health,
// and the TLS listeners' certificate expiry dates.
import { certificateMetrics as cert } from '../../src/collectors/certificates/metrics.js';
import { quorumMetrics as qq } from '../../src/collectors/queues/quorum-metrics.js';
import type { Layout } from './grafana.js';
import { scoped, sumBy } from './promql.js';

export function fillClusterSignals(l: Layout): void {
  l.row('Quorum queues')
    .timeseries({
      title: 'Quorum queue leaders per node',
      description: 'Quorum queues led by each node, over all vhosts (queues.quorum_placement). After a restart the leaders stay where they moved: a node with replicas and few leaders is idle while the others do the work; rebalance with rabbitmq-queues rebalance quorum.',
      unit: 'short',
      span: 8,
      targets: [{ expr: sumBy(['node'], qq.leaders, scoped(qq.leaders)), legend: '{{node}}' }],
    })
    .timeseries({
      title: 'Quorum queue replicas per node',
      description: 'Quorum queue members hosted by each node, over all vhosts.',
      unit: 'short',
      span: 8,
      targets: [{ expr: sumBy(['node'], qq.replicas, scoped(qq.replicas)), legend: '{{node}}' }],
    })
    .timeseries({
      title: 'Quorum queues at risk',
      description: 'Quorum queues below quorum (unavailable), without a leader, and with fewer members than their target size, per vhost.',
      unit: 'short',
      span: 8,
      targets: [
        { expr: scoped(qq.belowQuorum), legend: 'below quorum {{vhost}}' },
        { expr: scoped(qq.withoutLeader), legend: 'without leader {{vhost}}' },
        { expr: scoped(qq.belowTarget), legend: 'below target size {{vhost}}' },
      ],
    });

  l.row('TLS certificates')
    .table({
      title: 'Days until certificates expire',
      description: 'Per TLS listener of the answering node and file (certfile, cacertfile): days until its first certificate expires (certificates collector).',
      unit: 'd',
      span: 24,
      targets: [{ expr: `(${scoped(cert.expiry)} - time()) / 86400` }],
    });
}
