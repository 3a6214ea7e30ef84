import { consumerMetrics } from '../../src/collectors/consumers/metrics.js';
import { familyMetrics as f } from '../../src/collectors/queues/family-metrics.js';
import { queueMetrics as q } from '../../src/collectors/queues/metrics.js';
import type { MetricDef } from '../../src/model/metric-def.js';
import type { DashboardSpec } from './grafana.js';
import { DASHBOARD_SCOPE, matcherText, scoped, scopedRate } from './promql.js';
import { queueReadySlope, queuesGrowing } from './recording-rules.js';

const V = { vhost: '=~$vhost' };
// The queue variable takes one value, which Grafana puts in as it is: matched with =, not =~,
// or a dot in a queue's name (orders.v1) would match any character (ordersXv1).
const ONE = { vhost: '=~$vhost', queue: '$queue' };

export const queuesDashboard: DashboardSpec = {
  uid: 'rabbitmq-exporter-queues',
  title: 'RabbitMQ / Queues',
  description: 'Which queues hold a backlog or grow, which have no consumer, how busy their consumers are, and one queue in detail.',
  variables: ['vhost', 'queue'],
  fill(l) {
    l.row('Queues')
      .stat({ title: 'Queues', description: 'Queues in the selected vhosts (every queue, filtered or capped or not).', unit: 'short', span: 6, targets: [{ expr: `sum(${scoped(q.vhostQueues, V)})` }] })
      .stat({
        title: 'Ready without consumers',
        description: 'Queues that hold ready messages and have no consumer.',
        unit: 'short',
        span: 6,
        targets: [{ expr: `sum(${scoped(q.vhostQueuesWithoutConsumers, V)})` }],
      })
      .stat({ title: 'Not running', description: 'Queues whose state is not running (down, crashed, minority, ...).', unit: 'short', span: 6, targets: [{ expr: `sum(${scoped(q.vhostQueuesNotRunning, V)})` }] })
      .stat({
        title: 'Growing',
        description: `Queues whose ready messages grew over the last 10 minutes (recording rule ${queuesGrowing.record}; empty when none grows).`,
        unit: 'short',
        span: 6,
        targets: [{ expr: `sum(${queuesGrowing.record}${matcherText({ ...DASHBOARD_SCOPE, ...V })})` }],
      });

    l.row('Backlog')
      .timeseries({
        title: 'Top 10 queues by ready messages',
        description: 'The ten queues holding the most messages ready for delivery.',
        unit: 'short',
        targets: [{ expr: `topk(10, ${scoped(q.messagesReady, V)})`, legend: '{{vhost}} / {{queue}}' }],
      })
      .timeseries({
        title: 'Top 10 queues by growth',
        description: `The ten queues whose ready messages grow fastest: slope over 10 minutes, in messages per second (recording rule ${queueReadySlope.record}).`,
        unit: 'mps',
        targets: [{ expr: `topk(10, ${queueReadySlope.record}${matcherText({ ...DASHBOARD_SCOPE, ...V })} > 0)`, legend: '{{vhost}} / {{queue}}' }],
      })
      .timeseries({
        title: 'Messages by vhost and queue type',
        description: 'Ready and unacknowledged messages summed per vhost and queue type (served by the exporter, over every queue).',
        unit: 'short',
        stacked: true,
        targets: [
          { expr: scoped(q.vhostQueueMessagesReady, V), legend: 'ready {{vhost}} {{type}}' },
          { expr: scoped(q.vhostQueueMessagesUnacked, V), legend: 'unacked {{vhost}} {{type}}' },
        ],
      })
      .timeseries({
        title: 'Age of the oldest message (top 10)',
        description: 'Now minus the timestamp property of the message at the head of the queue; only for messages whose publisher set a timestamp.',
        unit: 's',
        targets: [{ expr: `topk(10, time() - ${scoped(q.headMessageTimestamp, V)})`, legend: '{{vhost}} / {{queue}}' }],
      });

    l.row('Consumers')
      .timeseries({
        title: 'Consumers by vhost and queue type',
        description: 'Consumers of the queues of each vhost and queue type.',
        unit: 'short',
        targets: [{ expr: scoped(q.vhostQueueConsumers, V), legend: '{{vhost}} {{type}}' }],
      })
      .timeseries({
        title: 'Lowest consumer utilisation (bottom 10)',
        description: 'Fraction of time a queue could deliver to its consumers at once (consumer capacity; consumer utilisation, its older name, where the broker reports only that); low values mean consumers are slow or prefetch is too small. Only queues with consumers report it.',
        unit: 'percentunit',
        targets: [{ expr: `bottomk(10, ${scoped(q.consumerCapacity, V)} or ${scoped(q.consumerUtilisation, V)})`, legend: '{{vhost}} / {{queue}}' }],
      })
      .table({
        title: 'Queues with ready messages and no consumer',
        description: 'Queues that hold ready messages while nobody consumes them; the value is the number of ready messages.',
        unit: 'short',
        span: 12,
        targets: [{ expr: `${scoped(q.messagesReady, V)} > 0 and on (job, instance, vhost, queue) ${scoped(q.consumers, V)} == 0` }],
      })
      .table({
        title: 'Consumers by prefetch',
        description: 'Manual-ack consumers by prefetch range; "unlimited" consumers can take any number of unacknowledged messages.',
        unit: 'short',
        span: 12,
        targets: [{ expr: scoped(consumerMetrics.byPrefetch, V) }],
      });

    // The signals of the queue collector (its signals option; docs/signals.md): empty without it.
    l.row('Signals')
      .timeseries({
        title: 'Estimated wait (top 10)',
        description: 'Ready messages divided by the drain rate of the last polls (deliveries and gets, or acks): how long a message ready now would wait. +Inf when nothing drains (shown at the top). Needs the signals option.',
        unit: 's',
        targets: [{ expr: `topk(10, ${scoped(q.estimatedWait, V)})`, legend: '{{vhost}} / {{queue}}' }],
      })
      .timeseries({
        title: 'Without progress (top 10)',
        description: 'How long each queue has held messages while neither deliveries, gets nor acks moved (as of the last statistics poll). Needs the signals option.',
        unit: 's',
        targets: [{ expr: `topk(10, ${scoped(q.withoutProgress, V)} > 0)`, legend: '{{vhost}} / {{queue}}' }],
      })
      .table({
        title: 'Stuck consumers',
        description: 'Queues whose consumers hold unacknowledged messages while the ack counter has not moved for collectors.queues.stuck_after statistics polls; the value is how long (seconds). Needs the signals option.',
        unit: 's',
        span: 12,
        targets: [{ expr: `${scoped(q.unackedStalled, V)} and on (job, instance, vhost, queue) ${scoped(q.consumersStuck, V)} == 1` }],
      })
      .table({
        title: 'Dead-letter queues',
        description: 'Queues that receive dead letters (found from dead-letter exchanges of arguments and policies and their bindings), with their messages. Needs the signals option.',
        unit: 'short',
        span: 12,
        targets: [{ expr: `${scoped(q.messages, V)} and on (job, instance, vhost, queue) ${scoped(q.deadLetterTarget, V)}` }],
      })
      .timeseries({
        title: 'Fill of length limits (top 10)',
        description: 'Ready messages (or their bytes) as a fraction of the queue\'s max-length (or max-length-bytes). Needs the signals option.',
        unit: 'percentunit',
        targets: [
          { expr: `topk(10, ${scoped(q.lengthLimitRatio, V)})`, legend: 'messages {{vhost}} / {{queue}}' },
          { expr: `topk(10, ${scoped(q.bytesLimitRatio, V)})`, legend: 'bytes {{vhost}} / {{queue}}' },
        ],
      })
      .timeseries({
        title: 'Time to full (bottom 10)',
        description: 'Seconds until a queue reaches its length limit at the growth of the last polls; queues that do not grow (+Inf) are left out. Needs the signals option.',
        unit: 's',
        targets: [
          { expr: `bottomk(10, ${scoped(q.lengthLimitTimeToFull, V)} < +Inf)`, legend: 'messages {{vhost}} / {{queue}}' },
          { expr: `bottomk(10, ${scoped(q.bytesLimitTimeToFull, V)} < +Inf)`, legend: 'bytes {{vhost}} / {{queue}}' },
        ],
      });

    // The roll-ups by family (collectors.queues.families; docs/queues.md): empty without it.
    l.row('Families')
      .timeseries({
        title: 'Messages by family',
        description: 'Ready and unacknowledged messages summed over the queues of each family (collectors.queues.families rules). Needs the families option.',
        unit: 'short',
        targets: perFamily((def) => scoped(def, V), { ready: f.familyMessagesReady, unacked: f.familyMessagesUnacked }),
      })
      .timeseries({
        title: 'Message rates by family',
        description: 'Messages per second published into and acknowledged from the queues of each family; a deleted queue does not make the rate dip (its counts stay in the family\'s total). Needs the families option and statistics.',
        unit: 'mps',
        targets: perFamily((def) => scopedRate(def, V), { published: f.familyPublished, acked: f.familyAcked }),
      })
      .timeseries({
        title: 'Queues by depth',
        description: 'Queues of the selected vhosts by how many messages they hold (0, 1-10, ... 1000000+). Needs the families option.',
        unit: 'short',
        targets: [{ expr: `sum by (depth) (${scoped(f.byDepth, V)})`, legend: '{{depth}}' }],
      });

    l.row('Queue $queue')
      .timeseries({
        title: 'Messages',
        description: 'Ready and unacknowledged messages in the selected queue.',
        unit: 'short',
        span: 8,
        targets: [
          { expr: scoped(q.messagesReady, ONE), legend: 'ready {{vhost}} / {{queue}}' },
          { expr: scoped(q.messagesUnacked, ONE), legend: 'unacked {{vhost}} / {{queue}}' },
        ],
      })
      .timeseries({
        title: 'Message rates',
        description: 'Messages per second published into the queue, delivered (manual and auto ack), acknowledged and redelivered.',
        unit: 'mps',
        span: 8,
        targets: [
          { expr: scopedRate(q.published, ONE), legend: 'published' },
          { expr: scopedRate(q.deliveredAck, ONE), legend: 'delivered (manual ack)' },
          { expr: scopedRate(q.deliveredNoAck, ONE), legend: 'delivered (auto ack)' },
          { expr: scopedRate(q.acked, ONE), legend: 'acknowledged' },
          { expr: scopedRate(q.redelivered, ONE), legend: 'redelivered' },
        ],
      })
      .timeseries({
        title: 'Consumers',
        description: 'Consumers of the selected queue by acknowledgement mode.',
        unit: 'short',
        span: 8,
        targets: [{ expr: scoped(consumerMetrics.perQueue, ONE), legend: '{{ack_mode}}' }],
      })
      .timeseries({
        title: 'Bytes and memory',
        description: 'Size of the message bodies in the queue, and memory of its Erlang process.',
        unit: 'bytes',
        targets: [
          { expr: scoped(q.messagesBytes, ONE), legend: 'message bodies' },
          { expr: scoped(q.memory, ONE), legend: 'process memory' },
        ],
      })
      .table({
        title: 'Queue settings',
        description: 'The queue\'s type, node, policy, state and arguments (rabbitmq_queue_info).',
        unit: 'none',
        span: 12,
        targets: [{ expr: scoped(q.info, ONE) }],
      });
  },
};

/** One target per family row, summed by vhost and family, its legend the row's word. */
function perFamily(expr: (def: MetricDef) => string, rows: Record<string, MetricDef>): { expr: string; legend: string }[] {
  return Object.entries(rows).map(([word, def]) => ({ expr: `sum by (vhost, family) (${expr(def)})`, legend: `${word} {{vhost}} / {{family}}` }));
}
