import { queueMetrics as M } from './metrics.js';
import type { BlockWriter, LabelBlock, SampleSink } from '../../exposition/sample-sink.js';
import { carried } from '../kit/carried.js';
import { getPath } from '../kit/field-table.js';
import type { QueueRecord } from './options.js';
import { queueLimits } from './series.js';
import { QueueHistory, type StatsReading } from './signal-history.js';

/** The settings the signals read. */
export interface SignalSettings {
  window: number;
  stuckAfter: number;
}

/**
 * The queue signals (docs/signals.md) of the queues with per-queue series: each queue's history
 * (signal-history.ts) kept between polls under its rendered labels. What is read from counts is
 * written every poll; what is read from counters or bytes only by the polls that fetch the
 * statistics, through the statistics tier's writer, which serves it again, unchanged, in between.
 */
export class QueueSignals {
  private histories = new Map<string, QueueHistory>();
  private seen = new Set<string>();
  private stuckPerVhost = new Map<string, number>();

  static in(carryOver: Map<string, unknown>): QueueSignals {
    const signals = carried(carryOver, 'signals', () => new QueueSignals());
    signals.seen = new Set();
    signals.stuckPerVhost = new Map();
    return signals;
  }

  /**
   * One queue of this poll: `writer` takes what the statistics poll `statsPoll` read from counters
   * (the tier's recorder), `sink` what counts give every poll; `now` on the monotonic clock.
   */
  observe(sink: BlockWriter, writer: BlockWriter, block: LabelBlock, queue: QueueRecord, now: number, statsPoll: boolean, settings: SignalSettings): void {
    const labels = block.text;
    let history = this.histories.get(labels);
    if (!history) {
      history = new QueueHistory(settings.window);
      this.histories.set(labels, history);
    }
    this.seen.add(labels);
    const ready = numberOf(queue.messages_ready);
    if (ready !== undefined) history.addCount(now, ready);
    const stats = statsPoll ? statsReading(queue) : undefined;
    if (stats) history.addStats(now, stats);
    const limits = queueLimits(queue);
    if (ready !== undefined) {
      write(sink, M.estimatedWait, block, history.estimatedWait(ready), queue);
      if (limits.messages !== undefined && limits.messages > 0) {
        write(sink, M.lengthLimitRatio, block, ready / limits.messages, queue);
        write(sink, M.lengthLimitTimeToFull, block, history.lengthTimeToFull(limits.messages), queue);
      }
    }
    const stuck = history.stuck(settings.stuckAfter);
    if (stuck) this.stuckPerVhost.set(queue.vhost as string, (this.stuckPerVhost.get(queue.vhost as string) ?? 0) + 1);
    else if (stuck === false && !this.stuckPerVhost.has(queue.vhost as string)) this.stuckPerVhost.set(queue.vhost as string, 0);
    if (!stats) return;
    write(writer, M.withoutProgress, block, history.withoutProgress(), queue);
    write(writer, M.unackedStalled, block, history.unackedStalled(), queue);
    write(writer, M.consumersStuck, block, stuck === undefined ? undefined : Number(stuck), queue);
    if (limits.bytes !== undefined && limits.bytes > 0 && stats.readyBytes !== undefined) {
      write(writer, M.bytesLimitRatio, block, stats.readyBytes / limits.bytes, queue);
      write(writer, M.bytesLimitTimeToFull, block, history.bytesTimeToFull(limits.bytes), queue);
    }
  }

  /** The per-vhost count of queues with stuck consumers, among those observed this poll. */
  emitPerVhost(sink: SampleSink): void {
    for (const [vhost, count] of this.stuckPerVhost) sink.add(M.vhostQueuesConsumersStuck, [vhost], count);
  }

  /**
   * Ends a successful poll: queues not seen are forgotten (a queue declared again later starts
   * afresh), except those whose labels start with one of `keep` (vhosts not read this poll).
   */
  commit(keep: readonly string[] = []): void {
    for (const labels of this.histories.keys()) {
      if (!this.seen.has(labels) && !keep.some((prefix) => labels.startsWith(prefix))) this.histories.delete(labels);
    }
  }

  /** Statistics switched off on the broker: the counter histories go; counts go on. */
  forgetStats(): void {
    for (const history of this.histories.values()) history.forgetStats();
  }
}

/** The counters of a statistics list's record; a record without message_stats has counted nothing yet. */
function statsReading(queue: QueueRecord): StatsReading {
  return {
    drained: numberOf(getPath(queue, ['message_stats', 'deliver_get'])) ?? 0,
    acked: numberOf(getPath(queue, ['message_stats', 'ack'])) ?? 0,
    messages: numberOf(queue.messages),
    unacked: numberOf(queue.messages_unacknowledged),
    readyBytes: numberOf(queue.message_bytes_ready),
  };
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function write(writer: BlockWriter, def: (typeof M)[keyof typeof M], block: LabelBlock, value: number | undefined, queue: QueueRecord): void {
  if (value !== undefined) writer.addToBlock(def, block, value, queue);
}
