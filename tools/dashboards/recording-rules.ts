import { queueMetrics } from '../../src/collectors/queues/metrics.js';
import { series } from './promql.js';

export interface RecordingRule {
  readonly record: string;
  readonly expr: string;
  readonly doc: string;
}

/**
 * The exporter already serves per-vhost sums of the per-queue series (rabbitmq_vhost_queue_*),
 * so dashboards never sum 10,000 queues. What remains per queue is the slope of each backlog,
 * which the Queues dashboard ranks and counts and RabbitmqQueueBacklogGrowing watches: recorded
 * once per evaluation instead of computed over every queue on every refresh.
 */
export const queueReadySlope: RecordingRule = {
  record: 'vhost_queue:rabbitmq_queue_messages_ready:deriv10m',
  expr: `deriv(${series(queueMetrics.messagesReady)}[10m])`,
  doc: 'Slope of each queue\'s ready messages over 10 minutes (messages per second).',
};

export const queuesGrowing: RecordingRule = {
  record: 'vhost:rabbitmq_queues_growing:count',
  expr: `count by (job, instance, vhost) (${queueReadySlope.record} > 0)`,
  doc: 'Queues per vhost whose ready messages grew over the last 10 minutes; absent when none grows.',
};

export const recordingRules: readonly RecordingRule[] = [queueReadySlope, queuesGrowing];
