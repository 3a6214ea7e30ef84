/**
 * What the queue signals remember of one queue between polls, and the arithmetic on it. Times are
 * milliseconds on the monotonic clock. Counts (ready messages) come every poll; the counters
 * (deliveries and gets, acks) and the bytes only with the statistics, every stats_every polls, so
 * their points carry the time of the poll that fetched them: the age the statistics tier serves.
 */

/** The counters of one statistics poll. */
export interface StatsReading {
  /** message_stats.deliver_get: deliveries and gets in any ack mode (0 when the queue has none yet). */
  drained: number;
  /** message_stats.ack. */
  acked: number;
  messages: number | undefined;
  unacked: number | undefined;
  readyBytes: number | undefined;
}

interface CountPoint {
  at: number;
  ready: number;
}

interface StatsPoint extends StatsReading {
  at: number;
}

/** One queue's recent polls and the runs it is in (no progress, unacked without acks). */
export class QueueHistory {
  private counts: CountPoint[] = [];
  private stats: StatsPoint[] = [];
  /** Since when the queue has held messages with neither counter moving; undefined: not stalled. */
  private stalledSince: number | undefined;
  private unackedSince: number | undefined;
  /** Statistics polls in a row that found unacked messages and the ack counter where it was. */
  private unackedPolls = 0;

  constructor(private readonly window: number) {}

  /** This poll's ready messages (every poll). */
  addCount(at: number, ready: number): void {
    push(this.counts, { at, ready }, this.window);
  }

  /**
   * A statistics poll's counters. A counter below its last value (statistics reset, a queue
   * deleted and declared again, a leader that moved) starts the counter history again: the
   * window never spans a reset, and a run of no progress is not carried across it.
   */
  addStats(at: number, reading: StatsReading): void {
    const last = this.stats.at(-1);
    const reset = last !== undefined && (reading.drained < last.drained || reading.acked < last.acked);
    if (reset) this.forgetStats();
    const previous = reset ? undefined : last;
    const backlog = (reading.messages ?? 0) > 0;
    if (previous && backlog && (previous.messages ?? 0) > 0 && reading.drained === previous.drained && reading.acked === previous.acked) this.stalledSince ??= previous.at;
    else this.stalledSince = undefined;
    if (previous && (reading.unacked ?? 0) > 0 && (previous.unacked ?? 0) > 0 && reading.acked === previous.acked) {
      this.unackedSince ??= previous.at;
      this.unackedPolls++;
    } else {
      this.unackedSince = undefined;
      this.unackedPolls = 0;
    }
    push(this.stats, { at, ...reading }, this.window);
  }

  /** Statistics no longer come (switched off): what was built on them goes. */
  forgetStats(): void {
    this.stats = [];
    this.stalledSince = undefined;
    this.unackedSince = undefined;
    this.unackedPolls = 0;
  }

  /** Messages drained per second (the larger of deliveries-and-gets and acks) over the window; undefined before two statistics polls. */
  drainRate(): number | undefined {
    const first = this.stats[0];
    const last = this.stats.at(-1);
    if (!first || !last || last.at <= first.at) return undefined;
    return Math.max(last.drained - first.drained, last.acked - first.acked) / ((last.at - first.at) / 1000);
  }

  /** Seconds a message that is ready now would wait, for `ready` messages (see the row's help for 0, +Inf, absent). */
  estimatedWait(ready: number): number | undefined {
    const rate = this.drainRate();
    if (rate === undefined) return undefined;
    if (ready <= 0) return 0;
    return rate > 0 ? ready / rate : Number.POSITIVE_INFINITY;
  }

  /** Seconds without progress as of the last statistics poll; undefined before one. */
  withoutProgress(): number | undefined {
    const last = this.stats.at(-1);
    if (!last) return undefined;
    return this.stalledSince === undefined ? 0 : (last.at - this.stalledSince) / 1000;
  }

  /** Seconds with unacked messages and no ack, as of the last statistics poll; undefined before one. */
  unackedStalled(): number | undefined {
    const last = this.stats.at(-1);
    if (!last) return undefined;
    return this.unackedSince === undefined ? 0 : (last.at - this.unackedSince) / 1000;
  }

  /** Whether the run of statistics polls with unacked messages and no ack is `polls` long; undefined before a statistics poll. */
  stuck(polls: number): boolean | undefined {
    return this.stats.length === 0 ? undefined : this.unackedPolls >= polls;
  }

  /** Seconds until ready messages reach `limit` at their growth over the window. */
  lengthTimeToFull(limit: number): number | undefined {
    return timeToFull(this.counts, (p) => p.ready, limit);
  }

  /** Seconds until ready bytes reach `limit` at their growth over the statistics window. */
  bytesTimeToFull(limit: number): number | undefined {
    return timeToFull(this.stats, (p) => p.readyBytes, limit);
  }
}

/** 0 at or above the limit, +Inf when not growing, undefined before two points with the value. */
function timeToFull<P extends { at: number }>(points: readonly P[], value: (point: P) => number | undefined, limit: number): number | undefined {
  const known = points.filter((p) => value(p) !== undefined);
  const first = known[0];
  const last = known.at(-1);
  if (!first || !last || last.at <= first.at) return undefined;
  const now = value(last)!;
  if (now >= limit) return 0;
  const growth = (now - value(first)!) / ((last.at - first.at) / 1000);
  return growth > 0 ? (limit - now) / growth : Number.POSITIVE_INFINITY;
}

function push<P>(points: P[], point: P, window: number): void {
  points.push(point);
  if (points.length > window) points.splice(0, points.length - window);
}
