import { familyMetrics as F } from './family-metrics.js';
import { toSampleValue, type SampleSink } from '../../exposition/sample-sink.js';
import { carried } from '../kit/carried.js';
import { addDefined, Tally } from '../kit/tally.js';
import { FamilyCounters } from './family-counters.js';
import { FamilyRules, type FamiliesOption, type FamilyChoice } from './family-rules.js';
import type { QueueRecord } from './options.js';

/** The depth buckets' labels and their upper bounds (messages, inclusive). */
export const DEPTH_BUCKETS: readonly (readonly [label: string, upTo: number])[] = [
  ['0', 0],
  ['1-10', 10],
  ['11-100', 100],
  ['101-1000', 1000],
  ['1001-10000', 10_000],
  ['10001-100000', 100_000],
  ['100001-999999', 999_999],
  ['1000000+', Number.POSITIVE_INFINITY],
];

/** What the statistics polls found, served again by the counts-only polls between them. */
interface HeldStats {
  counters: Map<string, number[]>;
  oldestHead: Map<string, number>;
}

/** What is kept from poll to poll. */
class FamilyMemory {
  readonly counters = new FamilyCounters();
  held: HeldStats = { counters: new Map(), oldestHead: new Map() };
  rules: FamilyRules | undefined;
  /** The option the rules were compiled from, as JSON. */
  rulesFrom = '';
}

/**
 * Roll-ups by family (docs/queues.md, "Families"): each queue of the watched vhosts put in a
 * family by the rules (family-rules.ts), its counts summed per vhost and family every poll, its
 * counters (family-counters.ts) and head timestamp on the polls that fetch statistics; and every
 * queue counted in its vhost's depth bucket.
 */
export class QueueFamilies {
  private readonly tally = new Tally();
  private readonly depths = new Map<string, number[]>();
  private readonly oldestHead = new Map<string, number>();
  /** Queues whose per-queue series are not served. */
  rolledUp = 0;

  private constructor(
    private readonly option: FamiliesOption,
    private readonly rules: FamilyRules,
    private readonly memory: FamilyMemory,
    private readonly statsPoll: boolean,
  ) {}

  /** `statsPoll`: this poll fetches the statistics list. */
  static in(carryOver: Map<string, unknown>, option: FamiliesOption, statsPoll: boolean): QueueFamilies {
    const memory = carried(carryOver, 'families', () => new FamilyMemory());
    memory.counters.begin();
    // Compiled once, with the families they chose by name; other rules start again.
    const from = JSON.stringify(option);
    if (!memory.rules || memory.rulesFrom !== from) {
      memory.rules = new FamilyRules(option);
      memory.rulesFrom = from;
    }
    memory.rules.begin();
    return new QueueFamilies(option, memory.rules, memory, statsPoll);
  }

  /** Statistics switched off on the broker: none will come to refresh what is held. */
  static forgetStats(carryOver: Map<string, unknown>): void {
    const memory = carryOver.get('families') as FamilyMemory | undefined;
    if (memory) memory.held = { counters: new Map(), oldestHead: new Map() };
  }

  /** One queue of the poll; its family, or undefined when it is in none. */
  add(queue: QueueRecord): FamilyChoice | undefined {
    const vhost = queue.vhost as string;
    if (this.option.depth_buckets) this.countDepth(vhost, toSampleValue(queue.messages));
    const choice = this.rules.choose(queue.name as string);
    if (!choice) return undefined;
    if (!choice.perQueue) this.rolledUp++;
    this.tally.add([vhost, choice.family], {
      messages: queue.messages,
      messages_ready: queue.messages_ready,
      messages_unacknowledged: queue.messages_unacknowledged,
      consumers: queue.consumers,
    });
    if (!this.statsPoll) return choice;
    const key = `${vhost}\u0000${choice.family}`;
    this.memory.counters.add(key, queue);
    const head = toSampleValue(queue.head_message_timestamp);
    if (head !== undefined) this.oldestHead.set(key, Math.min(head, this.oldestHead.get(key) ?? head));
    return choice;
  }

  /** Ends a successful poll and writes its series; `unread`: vhosts that could not be read. */
  emit(sink: SampleSink, unread: ReadonlySet<string>): void {
    this.rules.commit();
    if (this.statsPoll) this.memory.held = { counters: this.memory.counters.commit(unread), oldestHead: this.oldestHead };
    const { counters, oldestHead } = this.memory.held;
    for (const group of this.tally) {
      const labels = group.labels;
      sink.add(F.familyQueues, labels, group.count);
      addDefined(sink, F.familyMessages, labels, group.sum('messages'));
      addDefined(sink, F.familyMessagesReady, labels, group.sum('messages_ready'));
      addDefined(sink, F.familyMessagesUnacked, labels, group.sum('messages_unacknowledged'));
      addDefined(sink, F.familyConsumers, labels, group.sum('consumers'));
      const key = labels.join('\u0000');
      const totals = counters.get(key);
      if (totals) {
        sink.add(F.familyPublished, labels, totals[0]!);
        sink.add(F.familyDeliveredOrGot, labels, totals[1]!);
        sink.add(F.familyAcked, labels, totals[2]!);
      }
      addDefined(sink, F.familyOldestHead, labels, oldestHead.get(key));
    }
    for (const [vhost, counts] of this.depths) {
      for (const [i, [depth]] of DEPTH_BUCKETS.entries()) sink.add(F.byDepth, [vhost, depth], counts[i]!);
    }
    sink.add(F.rolledUp, [], this.rolledUp);
  }

  private countDepth(vhost: string, messages: number | undefined): void {
    // A queue without a count (statistics off, no queue totals) is in no bucket.
    if (messages === undefined) return;
    let counts = this.depths.get(vhost);
    if (!counts) {
      counts = DEPTH_BUCKETS.map(() => 0);
      this.depths.set(vhost, counts);
    }
    const bucket = DEPTH_BUCKETS.findIndex(([, upTo]) => messages <= upTo);
    counts[bucket]!++;
  }
}
