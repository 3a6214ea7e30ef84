import { infoLabelOf, QUEUE_INFO_ARGUMENTS, queueMetrics as M } from './metrics.js';
import { type BlockWriter, LabelBlock } from '../../exposition/sample-sink.js';
import type { QueueBlocks } from './label-blocks.js';
import { printedLabel } from '../kit/label-text.js';
import { RUNNING_STATES, type QueueRecord } from './options.js';

/** The per-queue series that are not plain fields: state, replicas, idle since. */
export function emitQueueState(writer: BlockWriter, queue: QueueRecord, block: LabelBlock, withDetails: boolean): void {
  if (typeof queue.state === 'string') writer.addToBlock(M.running, block, RUNNING_STATES.has(queue.state) ? 1 : 0, queue);
  if (Array.isArray(queue.members)) writer.addToBlock(M.members, block, queue.members.length, queue);
  if (Array.isArray(queue.online)) writer.addToBlock(M.membersOnline, block, queue.online.length, queue);
  if (!withDetails) return;
  const idle = parseTimestamp(queue.idle_since);
  if (idle !== undefined) writer.addToBlock(M.idleSince, block, idle, queue);
}

/** The queue's effective length limits, where its argument or its policies set one: the smaller wins, as in RabbitMQ. */
export function emitQueueLimits(sink: BlockWriter, queue: QueueRecord, block: LabelBlock): void {
  const { messages, bytes } = queueLimits(queue);
  if (messages !== undefined) sink.addToBlock(M.maxLength, block, messages, queue);
  if (bytes !== undefined) sink.addToBlock(M.maxLengthBytes, block, bytes, queue);
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
  return brokerTimestamp(value) ?? parsedTimestamp(value);
}

/** Any timestamp Date.parse reads; a plain `YYYY-MM-DD HH:MM:SS` is UTC. */
export function parsedTimestamp(value: string): number | undefined {
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value) ? `${value.replace(' ', 'T')}Z` : value;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

/**
 * The two forms the broker writes, read digit by digit: Date.parse of every queue's idle_since
 * was ~60 ms of a poll at 100,000 queues. Undefined for anything else, or a field out of range
 * (Date.parse decides those). Within the ranges Date.UTC rolls over as Date.parse does (31 February).
 */
export function brokerTimestamp(value: string): number | undefined {
  const withMillis = value.length === 29 && value.charCodeAt(10) === T && value.charCodeAt(19) === DOT && value.endsWith('+00:00');
  if (!withMillis && !(value.length === 19 && value.charCodeAt(10) === SPACE)) return undefined;
  if (value.charCodeAt(4) !== DASH || value.charCodeAt(7) !== DASH || value.charCodeAt(13) !== COLON || value.charCodeAt(16) !== COLON) return undefined;
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 2);
  const day = digits(value, 8, 2);
  const hour = digits(value, 11, 2);
  const minute = digits(value, 14, 2);
  const second = digits(value, 17, 2);
  const millis = withMillis ? digits(value, 20, 3) : 0;
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || millis < 0) return undefined;
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) / 1000;
}

const T = 0x54;
const DOT = 0x2e;
const SPACE = 0x20;
const DASH = 0x2d;
const COLON = 0x3a;

/** The decimal number of `count` digits at `from`; -1 when one is not a digit. */
function digits(value: string, from: number, count: number): number {
  let number = 0;
  for (let i = from; i < from + count; i++) {
    const digit = value.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    number = number * 10 + digit;
  }
  return number;
}

type InfoReader = (queue: QueueRecord, args: Record<string, unknown>) => string;

/** How each label of rabbitmq_queue_info is read from the queue's record (`args`: its arguments). */
const INFO_READERS: Record<string, InfoReader> = {
  vhost: (q) => printedLabel(q.vhost),
  queue: (q) => printedLabel(q.name),
  type: (q) => printedLabel(q.type),
  durable: (q) => printedLabel(q.durable),
  auto_delete: (q) => printedLabel(q.auto_delete),
  // A quorum or stream queue is never exclusive (the broker refuses the declaration); the
  // counts-only list answers null for theirs, the statistics list false: one series, not two.
  exclusive: (q) => (q.exclusive == null && (q.type === 'quorum' || q.type === 'stream') ? 'false' : printedLabel(q.exclusive)),
  policy: (q) => printedLabel(q.policy),
  operator_policy: (q) => printedLabel(q.operator_policy),
  node: (q) => printedLabel(q.leader ?? q.node),
  state: (q) => printedLabel(q.state),
  ...Object.fromEntries(QUEUE_INFO_ARGUMENTS.map((argument) => [infoLabelOf(argument), (_q: QueueRecord, args: Record<string, unknown>) => printedLabel(args[argument])])),
};

/** The readers in the row's label order; an error at load time when the row has a label none reads. */
const INFO_ORDER: readonly InfoReader[] = M.info.labels.map((label) => {
  const reader = INFO_READERS[label];
  if (!reader) throw new Error(`rabbitmq_queue_info's label ${label} is not read by emitQueueInfo`);
  return reader;
});

/**
 * rabbitmq_queue_info: node is the classic queue's node or the quorum/stream leader. `blocks`: the
 * queue's blocks, whose info block is rendered again only when one of its values changed.
 */
export function emitQueueInfo(sink: BlockWriter, queue: QueueRecord, blocks: QueueBlocks): void {
  const args = (queue.arguments !== null && typeof queue.arguments === 'object' ? queue.arguments : {}) as Record<string, unknown>;
  // Its text (~370 bytes a queue: 37 MB at 100,000 queues) is not kept: its lines are, in chunks
  // rendered again only when a queue's info or the queues of the chunk change.
  if (!blocks.info || !infoHolds(blocks.info, queue, args)) blocks.info = new LabelBlock(M.info.labels, INFO_ORDER.map((read) => read(queue, args)), false);
  sink.addToBlock(M.info, blocks.info, 1, queue);
}

/** Whether the queue's info block still holds its values, read one by one: no list of them per queue and poll. */
function infoHolds(block: LabelBlock, queue: QueueRecord, args: Record<string, unknown>): boolean {
  const values = block.values;
  if (values.length !== INFO_ORDER.length) return false;
  for (let i = 0; i < INFO_ORDER.length; i++) if (INFO_ORDER[i]!(queue, args) !== values[i]) return false;
  return true;
}
