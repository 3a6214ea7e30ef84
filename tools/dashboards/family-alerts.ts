import { familyMetrics as f } from '../../src/collectors/queues/family-metrics.js';
import { type AlertRule, testSeries as s, testTarget as target } from './alert-rule.js';
import { series } from './promql.js';
import { thresholds as t } from './thresholds.js';

const orders = { vhost: '/', family: 'orders' };

/**
 * The alerts of the queue roll-ups by family (docs/queues.md; the queue collector's families
 * option): what RabbitmqMessagesWithoutConsumer says of one queue, for a family whose per-queue
 * series may be off.
 */
export const queueFamilyAlerts: readonly AlertRule[] = [
  {
    alert: 'RabbitmqQueueFamilyWithoutConsumers',
    expr: `${series(f.familyMessagesReady)} > 0 and on (job, instance, vhost, family) ${series(f.familyConsumers)} == 0`,
    for: String(t.noConsumerFor.value),
    severity: 'warning',
    summary: 'Messages wait in the queues of family {{ $labels.family }} (vhost {{ $labels.vhost }}) and none has a consumer',
    description: 'The queues of family {{ $labels.family }} in vhost {{ $labels.vhost }} hold ready messages and not one of them has had a consumer for a while.',
    cases: [
      { name: 'no consumer in the family', input: [[s(f.familyMessagesReady, orders), '5x20'], [s(f.familyConsumers, orders), '0x20']], at: '20m', fires: [target(orders)] },
      { name: 'some queue of it consumed', input: [[s(f.familyMessagesReady, orders), '5x20'], [s(f.familyConsumers, orders), '1x20']], at: '20m', fires: [] },
      { name: 'empty family', input: [[s(f.familyMessagesReady, orders), '0x20'], [s(f.familyConsumers, orders), '0x20']], at: '20m', fires: [] },
    ],
  },
];
