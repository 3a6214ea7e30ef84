import { infoLabelOf, QUEUE_INFO_ARGUMENTS, queueMetrics as M } from './metrics.js';
import type { SampleSink, SampleWriter } from '../../model/sample-sink.js';
import { printedLabel } from '../kit/label-text.js';
import { RUNNING_STATES, type QueueRecord } from './options.js';

/** The per-queue series that are not plain fields: state, replicas, idle since. */
export function emitQueueState(writer: SampleWriter, queue: QueueRecord, labels: string, withDetails: boolean): void {
  if (typeof queue.state === 'string') writer.addRendered(M.running, labels, RUNNING_STATES.has(queue.state) ? 1 : 0, queue);
  if (Array.isArray(queue.members)) writer.addRendered(M.members, labels, queue.members.length, queue);
  if (Array.isArray(queue.online)) writer.addRendered(M.membersOnline, labels, queue.online.length, queue);
  if (!withDetails) return;
  const idle = parseTimestamp(queue.idle_since);
  if (idle !== undefined) writer.addRendered(M.idleSince, labels, idle, queue);
}

/** The queue's effective length limits, where its argument or its policies set one: the smaller wins, as in RabbitMQ. */
export function emitQueueLimits(sink: SampleSink, queue: QueueRecord, labels: string): void {
  const { messages, bytes } = queueLimits(queue);
  if (messages !== undefined) sink.addRendered(M.maxLength, labels, messages, queue);
  if (bytes !== undefined) sink.addRendered(M.maxLengthBytes, labels, bytes, queue);
}

/** The queue's effective length limits (messages, bytes): the smaller of argument and effective policy; undefined when unset. */
export function queueLimits(queue: QueueRecord): { messages?: number; bytes?: number } {
  const args = objectOf(queue.arguments);
  const policy = objectOf(queue.effective_policy_definition);
  return { messages: smallest(args['x-max-length'], policy['max-length']), bytes: smallest(args['x-max-length-bytes'], policy['max-length-bytes']) };
}

export function objectOf(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The smallest of the limits that are non-negative numbers; undefined when none is. */
function smallest(...limits: unknown[]): number | undefined {
  const numbers = limits.filter((v): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0);
  return numbers.length > 0 ? Math.min(...numbers) : undefined;
}

/** idle_since is `2026-11-22T03:17:56.076+00:00` in 3.10+, `2019-03-13 11:17:44` (UTC) before. */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value) ? `${value.replace(' ', 'T')}Z` : value;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

const ARGUMENT_LABELS = QUEUE_INFO_ARGUMENTS.map((argument) => [argument, infoLabelOf(argument)] as const);

/** rabbitmq_queue_info: node is the classic queue's node or the quorum/stream leader. */
export function emitQueueInfo(sink: SampleSink, queue: QueueRecord): void {
  const args = (queue.arguments !== null && typeof queue.arguments === 'object' ? queue.arguments : {}) as Record<string, unknown>;
  const labels: Record<string, string> = {
    vhost: printedLabel(queue.vhost),
    queue: printedLabel(queue.name),
    type: printedLabel(queue.type),
    durable: printedLabel(queue.durable),
    auto_delete: printedLabel(queue.auto_delete),
    exclusive: printedLabel(queue.exclusive),
    policy: printedLabel(queue.policy),
    operator_policy: printedLabel(queue.operator_policy),
    node: printedLabel(queue.leader ?? queue.node),
    state: printedLabel(queue.state),
  };
  for (const [argument, label] of ARGUMENT_LABELS) labels[label] = printedLabel(args[argument]);
  sink.add(M.info, labels, 1, queue);
}
