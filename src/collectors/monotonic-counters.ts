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
  private previous = new Map<string, { raw: number; offset: number }>();
  private current = new Map<string, { raw: number; offset: number }>();

  adjust(seriesKey: string, raw: number): number {
    const before = this.previous.get(seriesKey);
    let offset = before?.offset ?? 0;
    if (before && raw < before.raw) {
      offset += before.raw - raw;
    }
    this.current.set(seriesKey, { raw, offset });
    return raw + offset;
  }

  /** Ends a poll: series not seen in it are forgotten. */
  commit(): void {
    this.previous = this.current;
    this.current = new Map();
  }

  /** A failed poll keeps the state of the last good one. */
  discard(): void {
    this.current = new Map();
  }

  static in(carryOver: Map<string, unknown>): MonotonicCounters {
    const counters = carried(carryOver, 'monotonic', () => new MonotonicCounters());
    counters.discard();
    return counters;
  }
}
