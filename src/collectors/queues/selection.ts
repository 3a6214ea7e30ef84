import { toSampleValue } from '../../exposition/sample-sink.js';
import { NameFilter } from '../kit/name-filter.js';
import type { QueueOptions, QueueRecord, Ranking } from './options.js';
import { carried } from '../kit/carried.js';


const keyOf = (queue: QueueRecord) => `${queue.vhost as string}\u0000${queue.name as string}`;
const numberOr0 = (raw: unknown) => toSampleValue(raw) ?? 0;

/**
 * What the ranking remembers from one poll to the next: the queues served (a tie keeps them, so
 * equal queues do not take turns and start new series every poll), each queue's backlog (for
 * `growth`) and its last publish rate (for `publish_rate`: counts-only polls carry no rates).
 */
export class RankingMemory {
  served = new Set<string>();
  backlogs = new Map<string, number>();
  publishRates = new Map<string, number>();

  static in(carryOver: Map<string, unknown>): RankingMemory {
    const memory = carried(carryOver, 'queue-ranking', () => new RankingMemory());
    return memory;
  }
}

interface Candidate {
  readonly queue: QueueRecord;
  readonly key: string;
  /** Listing order: the last resort of a tie, and the order the chosen are written in. */
  readonly seq: number;
  readonly score: number;
  /** Second key for `growth` and `publish_rate`: the backlog. */
  readonly backlog: number;
  readonly wasServed: boolean;
}

/** Negative when `a` ranks below `b`: lower score, lower backlog, not served last poll, listed later. */
function compare(a: Candidate, b: Candidate): number {
  return a.score - b.score || a.backlog - b.backlog || Number(a.wasServed) - Number(b.wasServed) || b.seq - a.seq;
}

/**
 * Which queues get per-queue series: the name filter and the exclusive and auto-delete skips,
 * then `max_queues`. Queues `always_serve` names are served whatever the cap. With a cap and a
 * ranking, the `max_queues` queues ranking highest are served; they are known only once the whole
 * list was read, so `offer` holds them (at most `max_queues` records, in a heap) and `chosen`
 * gives them back. Without a ranking (`none`), the first `max_queues` listed are served at once.
 */
export class QueueSelection {
  private readonly names: NameFilter;
  private readonly pinned: NameFilter | undefined;
  private readonly heap: Candidate[] = [];
  private readonly next: RankingMemory;
  /** Served without a ranking (`none`), counted against the cap. */
  private served = 0;
  private seq = 0;
  filtered = 0;
  capped = 0;

  constructor(
    private readonly options: QueueOptions,
    private readonly memory: RankingMemory,
    /** Whether this poll's records carry rates (the statistics list). */
    private readonly withRates: boolean,
  ) {
    this.names = new NameFilter(options.queues);
    const pinned = options.always_serve;
    this.pinned = pinned.include === undefined && pinned.exclude === undefined && pinned.names === undefined ? undefined : new NameFilter(pinned);
    this.next = new RankingMemory();
  }

  /** True when the queue is to be served now; false when it is filtered, cut, or held for the ranking. */
  offer(queue: QueueRecord): boolean {
    const o = this.options;
    const name = queue.name as string;
    if (!this.names.matches(name) || (o.skip_exclusive && queue.exclusive === true) || (o.skip_auto_delete && queue.auto_delete === true)) {
      this.filtered++;
      return false;
    }
    // Outside the cap: neither counted in it nor ranked.
    if (o.max_queues === 0 || this.pinned?.matches(name)) return true;
    const ranking = o.rank_by;
    if (ranking === 'none') {
      if (this.served >= o.max_queues) {
        this.capped++;
        return false;
      }
      this.served++;
      return true;
    }
    this.push(this.candidate(queue, keyOf(queue), ranking));
    return false;
  }

  /** The ranked queues that made the cut, in listing order. Call once, after the last offer. */
  chosen(): QueueRecord[] {
    const chosen = this.heap.sort((a, b) => a.seq - b.seq);
    for (const c of chosen) this.next.served.add(c.key);
    return chosen.map((c) => c.queue);
  }

  /** Ends a successful poll: what it saw is what the next one ranks against. */
  commit(): void {
    this.memory.served = this.next.served;
    this.memory.backlogs = this.next.backlogs;
    this.memory.publishRates = this.next.publishRates;
  }

  private candidate(queue: QueueRecord, key: string, ranking: Exclude<Ranking, 'none'>): Candidate {
    const backlog = numberOr0(queue.messages);
    let score = backlog;
    if (ranking === 'growth') {
      this.next.backlogs.set(key, backlog);
      // First seen: no growth known yet, the backlog decides.
      score = backlog - (this.memory.backlogs.get(key) ?? backlog);
    } else if (ranking === 'publish_rate') {
      const stats = queue.message_stats as { publish_details?: { rate?: unknown } } | undefined;
      const rate = this.withRates ? toSampleValue(stats?.publish_details?.rate) : this.memory.publishRates.get(key);
      if (rate !== undefined) this.next.publishRates.set(key, rate);
      score = rate ?? 0;
    }
    return { queue, key, seq: this.seq++, score, backlog, wasServed: this.memory.served.has(key) };
  }

  /** Keeps the `max_queues` best in a min-heap: the root is the one to cut next. */
  private push(candidate: Candidate): void {
    const heap = this.heap;
    if (heap.length >= this.options.max_queues) {
      this.capped++;
      if (heap.length === 0 || compare(candidate, heap[0]!) <= 0) return;
      heap[0] = candidate;
      this.siftDown(0);
      return;
    }
    heap.push(candidate);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (compare(heap[i]!, heap[parent]!) >= 0) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < heap.length && compare(heap[left]!, heap[least]!) < 0) least = left;
      if (right < heap.length && compare(heap[right]!, heap[least]!) < 0) least = right;
      if (least === i) return;
      [heap[i], heap[least]] = [heap[least]!, heap[i]!];
      i = least;
    }
  }
}
