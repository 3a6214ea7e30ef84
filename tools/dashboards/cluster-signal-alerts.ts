// Alerts of issue 26's cluster signals: quorum queue health, certificate expiry, outdated clients.
import { certificateMetrics as cert } from '../../src/collectors/certificates/metrics.js';
import { connectionMetrics } from '../../src/collectors/connections/metrics.js';
import { quorumMetrics as qq } from '../../src/collectors/queues/quorum-metrics.js';
import { type AlertRule, testSeries, testTarget } from './alert-rule.js';
import { series } from './promql.js';
import { thresholds as t } from './thresholds.js';

const s = testSeries;
const target = testTarget;
const DAY = 86_400;
const LISTENER = { node: 'rabbit@a', protocol: 'amqp/ssl', interface: '0.0.0.0', port: '5671' };
const client = (version: string, product = 'amqplib') => ({ vhost: '/', user: 'app', client_product: product, client_version: version, client_platform: 'Node.JS v20.20.2' });

export const clusterSignalAlerts: readonly AlertRule[] = [
  {
    alert: 'RabbitmqQuorumQueuesBelowQuorum',
    expr: `${series(qq.belowQuorum)} > 0`,
    for: String(t.belowQuorumFor.value),
    severity: 'critical',
    summary: 'Quorum queues of vhost {{ $labels.vhost }} have lost their majority',
    description: 'Quorum queues of vhost {{ $labels.vhost }} have fewer members online than a majority of their members: they accept no publishes and deliver nothing until members come back.',
    cases: [
      { name: 'a member down for good', input: [[s(qq.belowQuorum, { vhost: '/' }), '0x2 1x10']], at: '10m', fires: [target({ vhost: '/' })] },
      { name: 'one poll during a restart', input: [[s(qq.belowQuorum, { vhost: '/' }), '0x4 1 0x5']], at: '10m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqQuorumQueuesBelowTargetSize',
    expr: `${series(qq.belowTarget)} > 0`,
    for: String(t.belowTargetFor.value),
    severity: 'warning',
    summary: 'Quorum queues of vhost {{ $labels.vhost }} have fewer members than their target size',
    description: 'Quorum queues of vhost {{ $labels.vhost }} have fewer replicas than their target (x-quorum-initial-group-size or the cluster default, at most the node count): one more node lost may take them below quorum. Grow them with rabbitmq-queues grow.',
    cases: [
      { name: 'declared before the nodes joined', input: [[s(qq.belowTarget, { vhost: 'app' }), '2x40']], at: '40m', fires: [target({ vhost: 'app' })] },
      { name: 'at target', input: [[s(qq.belowTarget, { vhost: 'app' }), '0x40']], at: '40m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqCertificateExpiresSoon',
    expr: `${series(cert.expiry)} - time() < ${Number(t.certificateExpiryDays.value) * DAY}`,
    for: String(t.certificateExpiryFor.value),
    severity: 'warning',
    summary: 'The {{ $labels.file }} of listener {{ $labels.interface }}:{{ $labels.port }} on {{ $labels.node }} expires soon',
    description: 'A certificate of the {{ $labels.protocol }} listener {{ $labels.interface }}:{{ $labels.port }} on node {{ $labels.node }} ({{ $labels.file }}) expires within the threshold: renew it and make the node reload it before clients fail their TLS handshakes.',
    cases: [
      // time() at 2h is 7200 s: a date 10 days later is within 21 days.
      { name: 'expires in 10 days', input: [[s(cert.expiry, { ...LISTENER, file: 'certfile' }), `${7200 + 10 * DAY}x120`]], at: '2h', fires: [target({ ...LISTENER, file: 'certfile' })] },
      { name: 'expires in a year', input: [[s(cert.expiry, { ...LISTENER, file: 'cacertfile' }), `${365 * DAY}x120`]], at: '2h', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqOutdatedClientLibrary',
    expr: `${series(connectionMetrics.byClient, { client_product: 'amqplib', client_version: `=~${t.outdatedClientVersions.value}` })} > 0`,
    for: String(t.outdatedClientFor.value),
    severity: 'warning',
    summary: 'User {{ $labels.user }} in vhost {{ $labels.vhost }} connects with amqplib {{ $labels.client_version }}',
    description: 'Connections of user {{ $labels.user }} in vhost {{ $labels.vhost }} announce amqplib {{ $labels.client_version }}, which RabbitMQ 4.1 and later refuse (frame_max 4096): upgrade the application before upgrading the broker.',
    cases: [
      { name: 'amqplib 0.10.3 connected', input: [[s(connectionMetrics.byClient, client('0.10.3')), '2x90']], at: '90m', fires: [target(client('0.10.3'))] },
      {
        name: 'amqplib 0.10.7 and other products',
        input: [[s(connectionMetrics.byClient, client('0.10.7')), '2x90'], [s(connectionMetrics.byClient, client('0.10.3', 'RabbitMQ .NET client')), '1x90']],
        at: '90m',
        fires: [],
      },
    ],
  },
];
