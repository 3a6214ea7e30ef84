import { carried } from './carried.js';

/**
 * Keeps the counters we serve monotonic. The management API's message_stats can go down:
 * statistics are reset, a queue's leader moves, the channels they were counted on close. A
 * raw decrease would look to rate() like a reset followed by a burst of everything counted
 * since zero. Instead each decrease is added to an offset, so the served value keeps the
 * height it had and grows by what the broker counts from then on. A restart of the exporter
 * starts from the raw values again, which rate() treats as the reset it is.
 */
export class MonotonicCounters {
  /** Each counter's slot in a series' array. */
  private readonly slots = new Map<string, number>();
  /**
   * Per series (its rendered labels, a string the sink holds anyway): for each counter slot i,
   * the raw value at 2i and the offset at 2i + 1 (NaN: not seen). One small array per series
   * instead of an object and a "name + labels" key per counter: at 100,000 queues with a dozen
   * counters each that was 1.2 million of each, twice (previous and current poll).
   */
  private previous = new Map<string, number[]>();
  private current = new Map<string, number[]>();
  /** The series of the last adjust() and its arrays: a series' counters come one after another. */
  private lastSeries: string | undefined;
  private lastBefore: number[] | undefined;
  private lastNow: number[] | undefined;

  /** The value to serve for `counter` of the series with labels `series`, given its raw value. */
  adjust(series: string, counter: string, raw: number): number {
    let slot = this.slots.get(counter);
    if (slot === undefined) {
      slot = this.slots.size;
      this.slots.set(counter, slot);
    }
    const at = 2 * slot;
    if (series !== this.lastSeries) {
      this.lastSeries = series;
      this.lastBefore = this.previous.get(series);
      this.lastNow = this.current.get(series);
    }
    const before = this.lastBefore;
    let offset = 0;
    if (before && at < before.length && !Number.isNaN(before[at]!)) {
      offset = before[at + 1]!;
      if (raw < before[at]!) offset += before[at]! - raw;
    }
    let now = this.lastNow;
    if (!now || at >= now.length) {
      // A plain array, not a Float64Array: 100,000 typed arrays a poll, each with a buffer of its
      // own outside the heap, cost more in allocation and garbage collection than the counting.
      const grown = new Array<number>(2 * this.slots.size).fill(Number.NaN);
      if (now) for (let i = 0; i < now.length; i++) grown[i] = now[i]!;
      now = grown;
      this.current.set(series, now);
      this.lastNow = now;
    }
    now[at] = raw;
    now[at + 1] = offset;
    return raw + offset;
  }

  /**
   * Ends a poll: series not seen in it are forgotten, except those whose rendered labels start
   * with one of `keep` (a vhost not read this poll: its offsets stand when it answers again).
   */
  commit(keep: readonly string[] = []): void {
    if (keep.length > 0) for (const [series, values] of this.previous) if (!this.current.has(series) && keep.some((prefix) => series.startsWith(prefix))) this.current.set(series, values);
    this.previous = this.current;
    this.current = new Map();
    this.lastSeries = undefined;
    this.lastBefore = undefined;
    this.lastNow = undefined;
  }

  /** A failed poll keeps the state of the last good one. */
  discard(): void {
    this.current = new Map();
    this.lastSeries = undefined;
    this.lastBefore = undefined;
    this.lastNow = undefined;
  }

  static in(carryOver: Map<string, unknown>): MonotonicCounters {
    const counters = carried(carryOver, 'monotonic', () => new MonotonicCounters());
    counters.discard();
    return counters;
  }
}
