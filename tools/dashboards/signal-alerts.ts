import { queueMetrics as q } from '../../src/collectors/queues/metrics.js';
import { type AlertRule, testSeries as s, testTarget as target } from './alert-rule.js';
import { series } from './promql.js';
import { thresholds as t } from './thresholds.js';

const on = 'on (job, instance, vhost, queue)';
const orders = { vhost: '/', queue: 'orders' };
const parked = { vhost: '/', queue: 'orders.dlq' };
/** Dead-letter queues hold messages nobody drains by design: their own alert is RabbitmqDeadLetterQueueFilling. */
const notDeadLetters = `unless ${on} ${series(q.deadLetterTarget)}`;
const parkedTarget = [s(q.deadLetterTarget, { ...parked, dead_letter_exchange: 'dlx' }), '1x30'] as const;
/** +Inf for 21 samples: promtool's expanding notation (`1x20`) takes no infinities. */
const INFINITE = Array.from({ length: 21 }, () => '+Inf').join(' ');

/** The alerts of the queue signals (docs/signals.md; the queue collector's signals option). */
export const queueSignalAlerts: readonly AlertRule[] = [
  {
    alert: 'RabbitmqQueueWaitTooLong',
    expr: `${series(q.estimatedWait)} > ${t.waitMaxSeconds.value} ${notDeadLetters}`,
    for: String(t.waitFor.value),
    severity: 'warning',
    summary: 'Messages in queue {{ $labels.queue }} (vhost {{ $labels.vhost }}) would wait long',
    description: 'At the rate queue {{ $labels.queue }} in vhost {{ $labels.vhost }} was drained over the last polls, a message ready now would wait longer than the threshold (or forever: nothing drains).',
    cases: [
      { name: 'slow drain', input: [[s(q.estimatedWait, orders), '900x20']], at: '20m', fires: [target(orders)] },
      { name: 'nothing drains', input: [[s(q.estimatedWait, orders), INFINITE]], at: '20m', fires: [target(orders)] },
      { name: 'drains fast enough', input: [[s(q.estimatedWait, orders), '30x20']], at: '20m', fires: [] },
      { name: 'a short spike', input: [[s(q.estimatedWait, orders), '30x10 900x5 30x5']], at: '20m', fires: [] },
      { name: 'a dead-letter queue nobody drains', input: [[s(q.estimatedWait, parked), INFINITE], parkedTarget], at: '20m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqQueueNoProgress',
    expr: `${series(q.withoutProgress)} > ${t.noProgressSeconds.value} ${notDeadLetters}`,
    for: String(t.noProgressFor.value),
    severity: 'warning',
    summary: 'Queue {{ $labels.queue }} (vhost {{ $labels.vhost }}) holds messages and nothing moves',
    description: 'Queue {{ $labels.queue }} in vhost {{ $labels.vhost }} has held messages while neither deliveries, gets nor acks moved for longer than the threshold.',
    cases: [
      { name: 'stalled for half an hour', input: [[s(q.withoutProgress, orders), '0+60x30']], at: '30m', fires: [target(orders)] },
      { name: 'moves now and then', input: [[s(q.withoutProgress, orders), '0+60x10 0+60x10 0+60x10']], at: '30m', fires: [] },
      { name: 'a dead-letter queue at rest', input: [[s(q.withoutProgress, parked), '0+60x30'], parkedTarget], at: '30m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqQueueConsumersStuck',
    expr: `${series(q.consumersStuck)} == 1`,
    for: String(t.stuckConsumersFor.value),
    severity: 'warning',
    summary: 'Consumers of queue {{ $labels.queue }} (vhost {{ $labels.vhost }}) hold messages and do not acknowledge them',
    description: 'The consumers of queue {{ $labels.queue }} in vhost {{ $labels.vhost }} hold unacknowledged messages and the queue\'s ack counter has not moved over several statistics polls: a consumer hangs, or forgot to ack.',
    cases: [
      { name: 'stuck', input: [[s(q.consumersStuck, orders), '1x20']], at: '20m', fires: [target(orders)] },
      { name: 'acking', input: [[s(q.consumersStuck, orders), '0x20']], at: '20m', fires: [] },
    ],
  },
  {
    alert: 'RabbitmqDeadLetterQueueFilling',
    expr: `delta(${series(q.messages)}[${t.deadLetterWindow.value}]) > 0 and ${on} ${series(q.deadLetterTarget)}`,
    for: String(t.deadLetterFor.value),
    severity: 'warning',
    summary: 'Dead letters pile up in queue {{ $labels.queue }} (vhost {{ $labels.vhost }})',
    description: 'Queue {{ $labels.queue }} in vhost {{ $labels.vhost }} receives dead letters (rabbitmq_queue_dead_letter_target_info) and its messages keep growing: messages are rejected, expire or overflow somewhere upstream.',
    cases: [
      {
        name: 'a dead-letter queue grows',
        input: [[s(q.messages, parked), '0+3x30'], parkedTarget],
        at: '30m',
        fires: [target(parked)],
      },
      {
        name: 'an ordinary queue grows',
        input: [[s(q.messages, orders), '0+3x30'], parkedTarget],
        at: '30m',
        fires: [],
      },
      {
        name: 'a dead-letter queue holds steady',
        input: [[s(q.messages, parked), '40x30'], parkedTarget],
        at: '30m',
        fires: [],
      },
    ],
  },
  {
    alert: 'RabbitmqQueueNearLengthLimit',
    expr: [
      `${series(q.lengthLimitRatio)} > ${t.lengthLimitRatio.value}`,
      `${series(q.bytesLimitRatio)} > ${t.lengthLimitRatio.value}`,
      `${series(q.lengthLimitTimeToFull)} < ${t.lengthLimitHorizonSeconds.value}`,
      `${series(q.bytesLimitTimeToFull)} < ${t.lengthLimitHorizonSeconds.value}`,
    ].join(' or '),
    for: String(t.lengthLimitFor.value),
    severity: 'warning',
    summary: 'Queue {{ $labels.queue }} (vhost {{ $labels.vhost }}) is at or near its length limit',
    description: 'Queue {{ $labels.queue }} in vhost {{ $labels.vhost }} is nearly full by its max-length or max-length-bytes, or grows fast enough to reach it soon: past the limit it drops, dead-letters or rejects messages (its overflow setting).',
    cases: [
      { name: 'nearly full', input: [[s(q.lengthLimitRatio, orders), '0.95x20'], [s(q.lengthLimitTimeToFull, orders), INFINITE]], at: '20m', fires: [target(orders)] },
      { name: 'filling fast', input: [[s(q.lengthLimitRatio, orders), '0.3x20'], [s(q.lengthLimitTimeToFull, orders), '600x20']], at: '20m', fires: [target(orders)] },
      { name: 'bytes nearly full', input: [[s(q.bytesLimitRatio, orders), '0.99x20']], at: '20m', fires: [target(orders)] },
      { name: 'room and steady', input: [[s(q.lengthLimitRatio, orders), '0.3x20'], [s(q.lengthLimitTimeToFull, orders), INFINITE]], at: '20m', fires: [] },
    ],
  },
];
