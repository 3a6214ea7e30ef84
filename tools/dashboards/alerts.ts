import { exporterMetrics as e } from '../../src/collectors/exporter/metrics.js';
import { healthMetrics } from '../../src/collectors/health-checks/metrics.js';
import { limitsMetrics } from '../../src/collectors/limits/metrics.js';
import { nodeMetrics as n } from '../../src/collectors/nodes/metrics.js';
import { overviewMetrics as o } from '../../src/collectors/overview/metrics.js';
import { pluginMetrics as p } from '../../src/collectors/plugin/metrics.js';
import { queueMetrics as q } from '../../src/collectors/queues/metrics.js';
import { vhostMetrics } from '../../src/collectors/vhosts/metrics.js';
import { connectionMetrics } from '../../src/collectors/connections/metrics.js';
import { increase, rate, series } from './promql.js';
import { queueReadySlope } from './recording-rules.js';
import { queueSignalAlerts } from './signal-alerts.js';
import { queueFamilyAlerts } from './family-alerts.js';
import { thresholds as t } from './thresholds.js';
import { type AlertRule, testSeries as s, testTarget as target } from './alert-rule.js';
import { clusterSignalAlerts } from './cluster-signal-alerts.js';

export { type AlertCase, type AlertRule, TEST_TARGET } from './alert-rule.js';

const CHECK_ALERTED_ELSEWHERE = 'alarms|local-alarms|certificate-expiration';

export const alertRules: readonly AlertRule[] = [
  {
    alert: 'RabbitmqExporterDown',
    // build_info marks an exporter's /metrics, rabbitmq_up a cluster's scrape: with several targets
    // they are different scrapes (/probe?target=NAME carries no build_info), and either may fail alone.
    expr: `up == 0 and on (job, instance) (max_over_time(${series(e.build)}[1d]) or max_over_time(${series(e.up)}[1d]))`,
    for: String(t.exporterDownFor.value),
    severity: 'critical',
    summary: 'Prometheus cannot scrape the RabbitMQ exporter {{ $labels.instance }}',
    description: 'The exporter target {{ $labels.instance }} of job {{ $labels.job }} served metrics within the last day and now fails to be scraped: no RabbitMQ data is collected.',
    cases: [
      {
        name: 'one cluster\'s /probe scrape fails',
        input: [
          ['up{job="rabbitmq", instance="orders"}', '1x5 0x10'],
          [series(e.up, { job: 'rabbitmq', instance: 'orders' }), '1x5'],
          ['up{job="rabbitmq", instance="billing"}', '1x15'],
          [series(e.up, { job: 'rabbitmq', instance: 'billing' }), '1x15'],
          ['up{job="rabbitmq-exporter", instance="exporter:9419"}', '1x15'],
          [series(e.build, { job: 'rabbitmq-exporter', instance: 'exporter:9419', version: '0.1.0', nodejs_version: 'v20' }), '1x15'],
        ],
        at: '15m',
        fires: [{ job: 'rabbitmq', instance: 'orders' }],
      },
      { name: 'one failed scrape', input: [['up{job="rabbitmq", instance="exporter:9419"}', '1x5 0 1x5'], [s(e.build, { version: '0.1.0', nodejs_version: 'v20' }), '1x5 _ 1x5']], at: '6m', fires: [] },
      { name: 'scrapes fail', input: [['up{job="rabbitmq", instance="exporter:9419"}', '1x5 0x10'], [s(e.build, { version: '0.1.0', nodejs_version: 'v20' }), '1x5']], at: '15m', fires: [target()] },
      { name: 'scrapes succeed', input: [['up{job="rabbitmq", instance="exporter:9419"}', '1x15'], [s(e.build, { version: '0.1.0', nodejs_version: 'v20' }), '1x15']], at: '15m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqBrokerUnreachable',
    expr: `${series(e.up)} == 0`,
    for: String(t.brokerUnreachableFor.value),
    severity: 'critical',
    summary: 'The exporter {{ $labels.instance }} cannot reach the RabbitMQ management API',
    description: 'rabbitmq_up is 0: the last polls of /api/overview by {{ $labels.instance }} failed. The exporter\'s log names the cause (connection refused, timeout, 401, ...).',
    cases: [
      { name: 'overview polls fail', input: [[s(e.up), '1x3 0x10']], at: '10m', fires: [target()] },
      { name: 'one failed poll', input: [[s(e.up), '1x5 0 1x5']], at: '6m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqCollectorFailing',
    expr: `${series(e.collectorSuccess)} == 0 unless on (job, instance) ${series(e.up)} == 0`,
    for: String(t.collectorFailingFor.value),
    severity: 'warning',
    summary: 'Collector {{ $labels.collector }} of {{ $labels.instance }} keeps failing: its data are getting stale',
    description: 'The last polls of collector {{ $labels.collector }} failed while the broker answers the overview. Its series keep their last values until max_age, then are withdrawn. The exporter\'s log names the path and the cause.',
    cases: [
      { name: 'queues collector fails', input: [[s(e.collectorSuccess, { collector: 'queues' }), '1x2 0x20'], [s(e.up), '1x22']], at: '20m', fires: [target({ collector: 'queues' })] },
      { name: 'broker unreachable is alerted alone', input: [[s(e.collectorSuccess, { collector: 'queues' }), '1x2 0x20'], [s(e.up), '1x2 0x20']], at: '20m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqCollectorDataWithdrawn',
    expr: `${series(e.collectorDataWithdrawn)} == 1 unless on (job, instance) ${series(e.up)} == 0`,
    for: String(t.collectorDataWithdrawnFor.value),
    severity: 'warning',
    summary: 'Collector {{ $labels.collector }} of {{ $labels.instance }} has no fresh data: its series are withdrawn',
    description: 'The last success of collector {{ $labels.collector }} is older than its max_age, so its series are no longer served; dashboards and alerts built on them go blank.',
    cases: [
      { name: 'withdrawn past for', input: [[s(e.collectorDataWithdrawn, { collector: 'nodes' }), '0 1x10'], [s(e.up), '1x10']], at: '10m', fires: [target({ collector: 'nodes' })] },
      { name: 'withdrawn by one failed poll, back at the next', input: [[s(e.collectorDataWithdrawn, { collector: 'nodes' }), '0x3 1 1 0x5'], [s(e.up), '1x10']], at: '5m', fires: [] },
      { name: 'withdrawn, not yet for long', input: [[s(e.collectorDataWithdrawn, { collector: 'nodes' }), '0x3 1x3'], [s(e.up), '1x6']], at: '6m', fires: [] },
      { name: 'fresh', input: [[s(e.collectorDataWithdrawn, { collector: 'nodes' }), '0x3'], [s(e.up), '1x3']], at: '2m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqNodeDown',
    expr: `${series(n.running)} == 0`,
    for: String(t.nodeDownFor.value),
    severity: 'critical',
    summary: 'RabbitMQ node {{ $labels.node }} is not running',
    description: 'The cluster knows node {{ $labels.node }} but reports it as not running.',
    cases: [
      { name: 'node stopped', input: [[s(n.running, { node: 'rabbit@b' }), '1 0x5'], [s(n.running, { node: 'rabbit@a' }), '1x5']], at: '5m', fires: [target({ node: 'rabbit@b' })] },
      { name: 'nodes running', input: [[s(n.running, { node: 'rabbit@a' }), '1x5']], at: '5m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqMemoryAlarm',
    expr: `max_over_time(${series(n.memAlarm)}[${t.alarmWindow.value}]) > 0`,
    for: String(t.alarmFor.value),
    severity: 'critical',
    summary: 'RabbitMQ node {{ $labels.node }} raised the memory alarm: publishers are blocked',
    description: 'Node {{ $labels.node }} uses more memory than its high watermark and blocks every connection that publishes, cluster-wide.',
    cases: [
      { name: 'alarm lasts', input: [[s(n.memAlarm, { node: 'rabbit@a' }), '0 0 1x5']], at: '5m', fires: [target({ node: 'rabbit@a' })] },
      // Raised and cleared every 15 s scrape: the gaps are shorter than alarmWindow, so it is one alarm that lasts.
      { name: 'alarm flapping', interval: '15s', input: [[s(n.memAlarm, { node: 'rabbit@a' }), '0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0']], at: '5m', fires: [target({ node: 'rabbit@a' })] },
      { name: 'alarm at one poll only', interval: '15s', input: [[s(n.memAlarm, { node: 'rabbit@a' }), '0x8 1 0x20']], at: '3m', fires: [] },
      { name: 'alarm not yet for long', input: [[s(n.memAlarm, { node: 'rabbit@a' }), '0 0 1 1']], at: '3m', fires: [] },
      { name: 'no alarm', input: [[s(n.memAlarm, { node: 'rabbit@a' }), '0x10']], at: '10m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqDiskAlarm',
    expr: `max_over_time(${series(n.diskAlarm)}[${t.alarmWindow.value}]) > 0`,
    for: String(t.alarmFor.value),
    severity: 'critical',
    summary: 'RabbitMQ node {{ $labels.node }} raised the disk alarm: publishers are blocked',
    description: 'Free disk space on node {{ $labels.node }} fell below its disk_free_limit; every connection that publishes is blocked, cluster-wide.',
    cases: [
      { name: 'alarm lasts', input: [[s(n.diskAlarm, { node: 'rabbit@a' }), '0 1x5']], at: '4m', fires: [target({ node: 'rabbit@a' })] },
      { name: 'alarm at one poll only', input: [[s(n.diskAlarm, { node: 'rabbit@a' }), '0 1 0x8']], at: '2m', fires: [] },
      { name: 'alarm cleared long ago', input: [[s(n.diskAlarm, { node: 'rabbit@a' }), '1x3 0x15']], at: '15m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqMemoryPredictedToRunOut',
    expr:
      `predict_linear(${series(n.memUsed)}[${t.memoryPredictWindow.value}], ${t.memoryPredictHorizonSeconds.value}) > ${series(n.memLimit)}` +
      ` and ${series(n.memUsed)} / ${series(n.memLimit)} > ${t.memoryPredictMinUsedRatio.value}`,
    for: String(t.memoryPredictFor.value),
    severity: 'warning',
    summary: 'RabbitMQ node {{ $labels.node }} will reach its memory high watermark within hours',
    description: 'At the rate memory use grew over the last hour, node {{ $labels.node }} reaches its high watermark within the horizon, and then blocks publishers.',
    cases: [
      // 60 % of the limit and +100 MB a minute: the limit is hours, not days, away.
      { name: 'steady growth', input: [[s(n.memUsed, { node: 'rabbit@a' }), '6000000000+100000000x90'], [s(n.memLimit, { node: 'rabbit@a' }), '10000000000x90']], at: '90m', fires: [target({ node: 'rabbit@a' })] },
      { name: 'flat', input: [[s(n.memUsed, { node: 'rabbit@a' }), '6000000000x90'], [s(n.memLimit, { node: 'rabbit@a' }), '10000000000x90']], at: '90m', fires: [] },
      { name: 'growing from little', input: [[s(n.memUsed, { node: 'rabbit@a' }), '100000000+50000000x90'], [s(n.memLimit, { node: 'rabbit@a' }), '10000000000x90']], at: '90m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqDiskPredictedToRunOut',
    expr: `predict_linear(${series(n.diskFree)}[${t.diskPredictWindow.value}], ${t.diskPredictHorizonSeconds.value}) < ${series(n.diskFreeLimit)}`,
    for: String(t.diskPredictFor.value),
    severity: 'warning',
    summary: 'RabbitMQ node {{ $labels.node }} will reach its disk free limit within a day',
    description: 'At the rate free disk space shrank over the last 6 hours, node {{ $labels.node }} falls below its disk_free_limit within the horizon, and then blocks publishers.',
    cases: [
      { name: 'shrinking', input: [[s(n.diskFree, { node: 'rabbit@a' }), '50000000000-100000000x400'], [s(n.diskFreeLimit, { node: 'rabbit@a' }), '50000000x400']], at: '400m', fires: [target({ node: 'rabbit@a' })] },
      { name: 'stable', input: [[s(n.diskFree, { node: 'rabbit@a' }), '50000000000x400'], [s(n.diskFreeLimit, { node: 'rabbit@a' }), '50000000x400']], at: '400m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqFileDescriptorsNearLimit',
    expr: `${series(n.fdUsed)} / ${series(n.fdTotal)} > ${t.fileDescriptorsRatio.value}`,
    for: String(t.fileDescriptorsFor.value),
    severity: 'warning',
    summary: 'RabbitMQ node {{ $labels.node }} is close to its file descriptor limit',
    description: 'Node {{ $labels.node }} has most of its file descriptors open; at the limit it refuses new connections and queues cannot open files.',
    cases: [
      { name: 'nearly exhausted', input: [[s(n.fdUsed, { node: 'rabbit@a' }), '900x20'], [s(n.fdTotal, { node: 'rabbit@a' }), '1000x20']], at: '20m', fires: [target({ node: 'rabbit@a' })] },
      { name: 'plenty left', input: [[s(n.fdUsed, { node: 'rabbit@a' }), '100x20'], [s(n.fdTotal, { node: 'rabbit@a' }), '1000x20']], at: '20m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqNetworkPartition',
    expr: `${series(n.partitions)} > 0`,
    for: String(t.partitionFor.value),
    severity: 'critical',
    summary: 'RabbitMQ node {{ $labels.node }} sees a network partition',
    description: 'Node {{ $labels.node }} sees other cluster nodes as partitioned from it; depending on cluster_partition_handling, nodes pause or data diverge.',
    cases: [
      { name: 'partitioned', input: [[s(n.partitions, { node: 'rabbit@a' }), '0 1x5']], at: '5m', fires: [target({ node: 'rabbit@a' })] },
      { name: 'whole', input: [[s(n.partitions, { node: 'rabbit@a' }), '0x5']], at: '5m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqClusterPeersUnreachable',
    expr: `${series(p.unreachablePeers)} > 0`,
    for: String(t.unreachablePeersFor.value),
    severity: 'warning',
    summary: 'RabbitMQ node {{ $labels.node }} cannot reach some of its cluster peers',
    description: 'The plugin of node {{ $labels.node }} counts cluster peers it cannot reach (collector plugin, RabbitMQ 4.0 and later). Below a majority of reachable nodes, quorum queues, streams and the metadata store stop accepting writes.',
    cases: [
      { name: 'a peer unreachable', input: [[s(p.unreachablePeers, { node: 'rabbit@a' }), '0 1x5']], at: '5m', fires: [target({ node: 'rabbit@a' })] },
      { name: 'every peer reached', input: [[s(p.unreachablePeers, { node: 'rabbit@a' }), '0x5']], at: '5m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqMetadataStoreLeaderChanging',
    expr: `max_over_time(${series(p.metadataTerm)}[${t.metadataStoreTermWindow.value}]) - min_over_time(${series(p.metadataTerm)}[${t.metadataStoreTermWindow.value}]) >= ${t.metadataStoreTermChanges.value}`,
    for: String(t.metadataStoreTermFor.value),
    severity: 'warning',
    summary: 'The metadata store\'s leader keeps changing, as node {{ $labels.node }} sees it',
    description: `The Raft term of the metadata store (Khepri) on node {{ $labels.node }} moved by ${t.metadataStoreTermChanges.value} or more within ${t.metadataStoreTermWindow.value}: its members keep electing a leader. Declarations, bindings, policies and users wait for a leader; RabbitMQ 4.3 needs a majority of nodes online for any of them.`,
    cases: [
      { name: 'elections every two minutes', input: [[s(p.metadataTerm, { node: 'rabbit@a' }), '1 1 2 2 3 3 4 4 5 5 6 6 7']], at: '12m', fires: [target({ node: 'rabbit@a' })] },
      { name: 'one election after a restart', input: [[s(p.metadataTerm, { node: 'rabbit@a' }), '1 1 2x11']], at: '12m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqHealthCheckFailing',
    expr: `${series(healthMetrics.checkUp, { check: `!~${CHECK_ALERTED_ELSEWHERE}` })} == 0`,
    for: String(t.healthCheckFor.value),
    severity: 'warning',
    summary: 'RabbitMQ health check {{ $labels.check }} fails on {{ $labels.instance }}',
    description: 'The management API\'s health check {{ $labels.check }} answers 503 (its port, protocol or vhost label says which, for the checks that take one). The exporter\'s log holds the broker\'s reason. Alarms and certificates have their own alerts.',
    cases: [
      {
        name: 'quorum critical',
        input: [[s(healthMetrics.checkUp, { check: 'node-is-quorum-critical' }), '1 0x10'], [s(healthMetrics.checkUp, { check: 'virtual-hosts' }), '1x10']],
        at: '10m',
        fires: [target({ check: 'node-is-quorum-critical' })],
      },
      { name: 'alarms check left to the alarm alerts', input: [[s(healthMetrics.checkUp, { check: 'alarms' }), '0x10'], [s(healthMetrics.checkUp, { check: 'virtual-hosts' }), '1x10']], at: '10m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqTlsCertificateExpiring',
    expr: `${series(healthMetrics.checkUp, { check: 'certificate-expiration' })} == 0`,
    for: String(t.certificateFor.value),
    severity: 'warning',
    summary: 'A TLS certificate of a RabbitMQ listener expires soon ({{ $labels.instance }})',
    description: 'The certificate-expiration health check fails: a certificate of a TLS listener of the node that answered expires within the configured number of days (collectors.health_checks.certificate_expiration_days).',
    cases: [
      { name: 'expiring', input: [[s(healthMetrics.checkUp, { check: 'certificate-expiration' }), '0x20']], at: '20m', fires: [target({ check: 'certificate-expiration' })] },
      { name: 'valid', input: [[s(healthMetrics.checkUp, { check: 'certificate-expiration' }), '1x20']], at: '20m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqQueueBacklogGrowing',
    expr: `${queueReadySlope.record} > 0 and on (job, instance, vhost, queue) ${series(q.messagesReady)} > ${t.backlogMinReady.value}`,
    for: String(t.backlogFor.value),
    severity: 'warning',
    summary: 'Queue {{ $labels.queue }} in vhost {{ $labels.vhost }} keeps growing',
    description: 'Ready messages in queue {{ $labels.queue }} (vhost {{ $labels.vhost }}) are above the backlog threshold and still growing: consumers do not keep up.',
    cases: [
      { name: 'growing backlog', input: [[s(q.messagesReady, { vhost: '/', queue: 'orders' }), '2000+50x60']], at: '60m', fires: [target({ vhost: '/', queue: 'orders' })] },
      { name: 'large but shrinking', input: [[s(q.messagesReady, { vhost: '/', queue: 'orders' }), '9000-50x60']], at: '60m', fires: [] },
      { name: 'growing but small', input: [[s(q.messagesReady, { vhost: '/', queue: 'orders' }), '0+5x60']], at: '60m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqMessagesWithoutConsumer',
    expr: `${series(q.messagesReady)} > 0 and on (job, instance, vhost, queue) ${series(q.consumers)} == 0`,
    for: String(t.noConsumerFor.value),
    severity: 'warning',
    summary: 'Messages wait in queue {{ $labels.queue }} (vhost {{ $labels.vhost }}) and nobody consumes them',
    description: 'Queue {{ $labels.queue }} in vhost {{ $labels.vhost }} holds ready messages and has had no consumer for a while.',
    cases: [
      {
        name: 'no consumer',
        input: [[s(q.messagesReady, { vhost: '/', queue: 'jobs' }), '5x20'], [s(q.consumers, { vhost: '/', queue: 'jobs' }), '0x20']],
        at: '20m',
        fires: [target({ vhost: '/', queue: 'jobs' })],
      },
      { name: 'consumed', input: [[s(q.messagesReady, { vhost: '/', queue: 'jobs' }), '5x20'], [s(q.consumers, { vhost: '/', queue: 'jobs' }), '1x20']], at: '20m', fires: [] },
      { name: 'empty queue', input: [[s(q.messagesReady, { vhost: '/', queue: 'jobs' }), '0x20'], [s(q.consumers, { vhost: '/', queue: 'jobs' }), '0x20']], at: '20m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqUnroutableMessagesDropped',
    expr: `sum by (job, instance, vhost) (${increase(vhostMetrics.droppedUnroutable, {}, String(t.unroutableWindow.value))}) >= ${t.unroutableMin.value}`,
    for: String(t.unroutableFor.value),
    severity: 'warning',
    summary: 'Unroutable messages are dropped in vhost {{ $labels.vhost }}',
    description: 'Messages published in vhost {{ $labels.vhost }} matched no binding and were not mandatory, so the broker dropped them: a missing binding, queue or alternate exchange.',
    cases: [
      { name: 'dropping', input: [[s(vhostMetrics.droppedUnroutable, { vhost: '/' }), '0+3x20']], at: '20m', fires: [target({ vhost: '/' })] },
      { name: 'one burst', input: [[s(vhostMetrics.droppedUnroutable, { vhost: '/' }), '0x3 50x20']], at: '7m', fires: [] },
      // The cluster-wide counter falls when a node restarts and takes its share along; increase() reads the fall as a reset.
      { name: 'counter falls once', input: [[s(vhostMetrics.droppedUnroutable, { vhost: '/' }), '1000x3 400x20']], at: '7m', fires: [] },
      { name: 'nothing dropped lately', input: [[s(vhostMetrics.droppedUnroutable, { vhost: '/' }), '0+3x5 15x20']], at: '25m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqVhostNearLimit',
    expr:
      `sum by (job, instance, vhost) (${series(connectionMetrics.byState)}) / on (job, instance, vhost) group_right ${series(limitsMetrics.vhostLimit, { limit: 'max-connections' })} > ${t.limitRatio.value}` +
      ` or sum by (job, instance, vhost) (${series(q.vhostQueues)}) / on (job, instance, vhost) group_right ${series(limitsMetrics.vhostLimit, { limit: 'max-queues' })} > ${t.limitRatio.value}`,
    for: String(t.limitFor.value),
    severity: 'warning',
    summary: 'Vhost {{ $labels.vhost }} is close to its {{ $labels.limit }} limit',
    description: 'Vhost {{ $labels.vhost }} uses most of its {{ $labels.limit }} limit; at the limit the broker refuses new connections or queue declarations there.',
    cases: [
      {
        name: 'connections near max-connections',
        input: [
          [s(connectionMetrics.byState, { vhost: 'app', user: 'u', protocol: 'AMQP 0-9-1', node: 'rabbit@a', state: 'running' }), '90x10'],
          [s(limitsMetrics.vhostLimit, { vhost: 'app', limit: 'max-connections' }), '100x10'],
          [s(q.vhostQueues, { vhost: 'app', type: 'classic' }), '10x10'],
          [s(limitsMetrics.vhostLimit, { vhost: 'app', limit: 'max-queues' }), '1000x10'],
        ],
        at: '10m',
        fires: [target({ vhost: 'app', limit: 'max-connections' })],
      },
      {
        name: 'queues near max-queues',
        input: [
          [s(q.vhostQueues, { vhost: 'app', type: 'classic' }), '500x10'],
          [s(q.vhostQueues, { vhost: 'app', type: 'quorum' }), '450x10'],
          [s(limitsMetrics.vhostLimit, { vhost: 'app', limit: 'max-queues' }), '1000x10'],
        ],
        at: '10m',
        fires: [target({ vhost: 'app', limit: 'max-queues' })],
      },
      {
        name: 'well below',
        input: [
          [s(connectionMetrics.byState, { vhost: 'app', user: 'u', protocol: 'AMQP 0-9-1', node: 'rabbit@a', state: 'running' }), '10x10'],
          [s(limitsMetrics.vhostLimit, { vhost: 'app', limit: 'max-connections' }), '100x10'],
          [s(q.vhostQueues, { vhost: 'other', type: 'classic' }), '5000x10'],
        ],
        at: '10m',
        fires: [],
      },
    ],
  },
  {
    alert: 'RabbitmqUserNearLimit',
    expr:
      `sum by (job, instance, user) (${series(connectionMetrics.byState)}) / on (job, instance, user) group_right ${series(limitsMetrics.userLimit, { limit: 'max-connections' })} > ${t.limitRatio.value}` +
      ` or sum by (job, instance, user) (${series(connectionMetrics.channels)}) / on (job, instance, user) group_right ${series(limitsMetrics.userLimit, { limit: 'max-channels' })} > ${t.limitRatio.value}`,
    for: String(t.limitFor.value),
    severity: 'warning',
    summary: 'User {{ $labels.user }} is close to its {{ $labels.limit }} limit',
    description: 'User {{ $labels.user }} uses most of its {{ $labels.limit }} limit; at the limit the broker refuses its new connections or channels.',
    cases: [
      {
        name: 'channels near max-channels',
        input: [
          [s(connectionMetrics.channels, { vhost: '/', user: 'app', protocol: 'AMQP 0-9-1', node: 'rabbit@a', state: 'running' }), '19x10'],
          [s(connectionMetrics.byState, { vhost: '/', user: 'app', protocol: 'AMQP 0-9-1', node: 'rabbit@a', state: 'running' }), '2x10'],
          [s(limitsMetrics.userLimit, { user: 'app', limit: 'max-channels' }), '20x10'],
          [s(limitsMetrics.userLimit, { user: 'app', limit: 'max-connections' }), '100x10'],
        ],
        at: '10m',
        fires: [target({ user: 'app', limit: 'max-channels' })],
      },
      {
        name: 'no limit set',
        input: [[s(connectionMetrics.byState, { vhost: '/', user: 'app', protocol: 'AMQP 0-9-1', node: 'rabbit@a', state: 'running' }), '5000x10']],
        at: '10m',
        fires: [],
      },
    ],
  },
  {
    alert: 'RabbitmqHighConnectionChurn',
    expr:
      `(${rate(o.connectionsOpened, {}, String(t.churnWindow.value))} + ${rate(o.connectionsClosed, {}, String(t.churnWindow.value))})` +
      ` / ${series(o.connections)} > ${t.churnRatio.value} unless ${series(o.connections)} < ${t.churnMinConnections.value}`,
    for: String(t.churnFor.value),
    severity: 'warning',
    summary: 'Clients of {{ $labels.instance }} open and close connections at a high rate',
    description: 'Connections opened plus closed per second exceed the threshold fraction of the open connections: clients reconnect instead of keeping connections open, which costs the broker CPU and memory.',
    cases: [
      {
        name: 'reconnect storm',
        input: [[s(o.connectionsOpened), '0+3000x30'], [s(o.connectionsClosed), '0+3000x30'], [s(o.connections), '200x30']],
        at: '30m',
        fires: [target()],
      },
      { name: 'steady', input: [[s(o.connectionsOpened), '0+6x30'], [s(o.connectionsClosed), '0+6x30'], [s(o.connections), '200x30']], at: '30m', fires: [] },
      { name: 'few connections', input: [[s(o.connectionsOpened), '0+3000x30'], [s(o.connectionsClosed), '0+3000x30'], [s(o.connections), '50x30']], at: '30m', fires: [] },
    ],
  },
  ...queueSignalAlerts,
  ...queueFamilyAlerts,
  ...clusterSignalAlerts,
];
