import { queueMetrics as M } from './metrics.js';
import { toSampleValue, type SampleSink } from '../../exposition/sample-sink.js';
import { scalarLabel } from '../kit/label-text.js';
import { addDefined, Tally } from '../kit/tally.js';
import { eachInTurns } from '../kit/in-turns.js';
import { RUNNING_STATES, type QueueRecord } from './options.js';
import type { StatsSums } from './stats-tier.js';

/**
 * The rabbitmq_vhost_queue* series: per vhost and queue type, over every fetched queue, before
 * filters and the cap. A sum is served only when some queue of the group reported the field: a
 * broker with statistics off (and no queue totals) reports no counts, which must not become 0.
 * Values that are not numbers add nothing here; the per-queue series count them as skipped.
 */
export class QueueAggregates {
  private readonly tally = new Tally();
  /** Queues per vhost and node (a classic queue's node, a replicated one's leader); undefined when the poll does not fetch every queue of its vhosts. */
  private readonly perNode: Tally | undefined;

  /** `everyQueue`: the poll fetches every queue of the vhosts it watches, and watches every vhost (of its shard). */
  constructor(everyQueue = false) {
    this.perNode = everyQueue ? new Tally() : undefined;
  }

  add(queue: QueueRecord): void {
    if (this.perNode) {
      const node = scalarLabel(queue.leader ?? queue.node);
      if (node) this.perNode.add([queue.vhost as string, node]);
    }
    const ready = toSampleValue(queue.messages_ready);
    const consumers = toSampleValue(queue.consumers);
    this.tally.add([queue.vhost as string, scalarLabel(queue.type) || 'classic'], {
      messages: queue.messages,
      messages_ready: queue.messages_ready,
      messages_unacknowledged: queue.messages_unacknowledged,
      message_bytes: queue.message_bytes,
      memory: queue.memory,
      consumers: queue.consumers,
      not_running: typeof queue.state === 'string' && !RUNNING_STATES.has(queue.state) ? 1 : 0,
      ready_without_consumers: ready !== undefined && ready > 0 && consumers === 0 ? 1 : 0,
    });
  }

  /** The sums only the statistics list yields, per group, to serve on the counts-only polls. */
  statsSums(): StatsSums {
    const sums: StatsSums = new Map();
    for (const group of this.tally) {
      const bytes = group.sum('message_bytes');
      const memory = group.sum('memory');
      sums.set(group.labels.join('\u0000'), { ...(bytes !== undefined ? { bytes } : {}), ...(memory !== undefined ? { memory } : {}) });
    }
    return sums;
  }

  /** `held`: on a counts-only poll, the statistics sums as the last poll that fetched them found them. */
  async emit(sink: SampleSink, held?: StatsSums): Promise<void> {
    // Thousands of vhosts: ten series each, with turns of the event loop between.
    for (const group of this.perNode ?? []) sink.add(M.nodeQueues, group.labels, group.count);
    await eachInTurns(this.tally, (group) => {
      const labels = group.labels;
      const kept = held?.get(labels.join('\u0000'));
      sink.add(M.vhostQueues, labels, group.count);
      sink.add(M.vhostQueuesNotRunning, labels, group.sum('not_running') ?? 0);
      addDefined(sink, M.vhostQueueMessages, labels, group.sum('messages'));
      addDefined(sink, M.vhostQueueMessagesReady, labels, group.sum('messages_ready'));
      addDefined(sink, M.vhostQueueMessagesUnacked, labels, group.sum('messages_unacknowledged'));
      addDefined(sink, M.vhostQueueMessagesBytes, labels, group.sum('message_bytes') ?? kept?.bytes);
      addDefined(sink, M.vhostQueueMemory, labels, group.sum('memory') ?? kept?.memory);
      const consumers = group.sum('consumers');
      addDefined(sink, M.vhostQueueConsumers, labels, consumers);
      if (consumers !== undefined && group.sum('messages_ready') !== undefined) {
        sink.add(M.vhostQueuesWithoutConsumers, labels, group.sum('ready_without_consumers') ?? 0);
      }
    });
  }
}
