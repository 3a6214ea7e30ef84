import { carried } from './carried.js';

/**
 * A series' state: its header, then per counter slot `SLOT_WIDTH` raw values. Offsets are held
 * apart, only for the series whose counters ever went down (few): at 100,000 queues of ten
 * counters, four numbers a counter were 33 MB of the live heap, two are 16 MB.
 */
const PENDING_POLL = 0;
const HEADER = 1;
const SLOT_WIDTH = 2;
/** Within a slot: the raw value of the last committed poll, then that of the poll under way. */
const KEPT_RAW = 0;
const NEW_RAW = 1;
/** Within a series' offsets, per slot: the offset of the last committed poll, then that of the poll under way. */
const OFFSET_WIDTH = 2;
const KEPT_OFFSET = 0;
const NEW_OFFSET = 1;

/**
 * Keeps the counters we serve monotonic. The management API's message_stats can go down:
 * statistics are reset, a queue's leader moves, the channels they were counted on close. A
 * raw decrease would look to rate() like a reset followed by a burst of everything counted
 * since zero. Instead each decrease is added to an offset, so the served value keeps the
 * height it had and grows by what the broker counts from then on. A restart of the exporter
 * starts from the raw values again, which rate() treats as the reset it is.
 */
export class MonotonicCounters {
  /** Each counter's slot in a series' state. */
  private readonly slots = new Map<string, number>();
  /**
   * Per series (its rendered labels, a string the sink holds anyway): one array kept from poll to
   * poll and written in place (NaN: not seen). At 100,000 queues a new map of new arrays each
   * poll was ~25 MB that outlived the young generation every poll, only to be collected by the
   * next full collection. The array holds both the last committed poll's values and those of the
   * poll under way, so a poll that fails half-way changes nothing that is served.
   */
  private readonly states = new Map<string, number[]>();
  /** Per series whose counters went down: per slot the kept offset, then the new one (0: none). */
  private readonly offsets = new Map<string, number[]>();
  /** The poll under way, and the last committed one (-1: none yet). */
  private poll = 0;
  private committed = -1;
  /** The series of the last adjust() and its state: a series' counters come one after another. */
  private lastSeries: string | undefined;
  private lastState: number[] | undefined;
  private lastOffsets: number[] | undefined;

  /** The value to serve for `counter` of the series with labels `series`, given its raw value. */
  adjust(series: string, counter: string, raw: number): number {
    let slot = this.slots.get(counter);
    if (slot === undefined) {
      slot = this.slots.size;
      this.slots.set(counter, slot);
    }
    if (series !== this.lastSeries || !this.lastState) {
      this.lastSeries = series;
      this.lastState = this.stateOf(series);
      this.lastOffsets = this.offsets.get(series);
    }
    let state = this.lastState;
    const at = HEADER + SLOT_WIDTH * slot;
    if (at >= state.length) {
      state = grownState(state, this.slots.size);
      this.states.set(series, state);
      this.lastState = state;
    }
    const keptRaw = state[at + KEPT_RAW]!;
    let offset = 0;
    if (!Number.isNaN(keptRaw)) {
      offset = this.lastOffsets?.[OFFSET_WIDTH * slot + KEPT_OFFSET] ?? 0;
      if (raw < keptRaw) offset += keptRaw - raw;
    }
    state[at + NEW_RAW] = raw;
    if (offset !== 0 || this.lastOffsets) this.offsetsOf(series, slot)[OFFSET_WIDTH * slot + NEW_OFFSET] = offset;
    return raw + offset;
  }

  /** The offsets of `series`, made (all 0) or grown to hold `slot`. */
  private offsetsOf(series: string, slot: number): number[] {
    let offsets = this.lastOffsets ?? [];
    if (offsets.length <= OFFSET_WIDTH * slot + NEW_OFFSET) {
      offsets = [...offsets, ...new Array<number>(OFFSET_WIDTH * this.slots.size - offsets.length).fill(0)];
      this.offsets.set(series, offsets);
      this.lastOffsets = offsets;
    }
    return offsets;
  }

  /**
   * The state of `series` for the poll under way: what the last committed poll left is moved to
   * the kept values (nothing, when it did not see the series), and the new values are cleared.
   */
  private stateOf(series: string): number[] {
    let state = this.states.get(series);
    if (!state) {
      state = grownState([], this.slots.size);
      state[PENDING_POLL] = this.poll;
      this.states.set(series, state);
      return state;
    }
    const written = state[PENDING_POLL]!;
    if (written !== this.poll) {
      this.settle(series, state, written === this.committed);
      state[PENDING_POLL] = this.poll;
    }
    return state;
  }

  /**
   * Readies a state written in an earlier poll for a new one: the new values of a committed poll
   * become the kept ones; otherwise (a poll that failed) the kept values stay. The new are cleared.
   */
  private settle(series: string, state: number[], newWereCommitted: boolean): void {
    for (let at = HEADER; at < state.length; at += SLOT_WIDTH) {
      if (newWereCommitted) state[at + KEPT_RAW] = state[at + NEW_RAW]!;
      state[at + NEW_RAW] = Number.NaN;
    }
    // A new offset left from an earlier poll is never read: a counter not seen has no kept raw value.
    const offsets = this.offsets.get(series);
    if (!offsets || !newWereCommitted) return;
    for (let at = 0; at < offsets.length; at += OFFSET_WIDTH) offsets[at + KEPT_OFFSET] = offsets[at + NEW_OFFSET]!;
  }

  /**
   * Ends a poll: series not seen in it are forgotten, except those whose rendered labels start
   * with one of `keep` (a vhost not read this poll: its offsets stand when it answers again).
   * A series seen in an earlier poll that failed and not since is forgotten too.
   */
  commit(keep: readonly string[] = []): void {
    for (const [series, state] of this.states) {
      if (state[PENDING_POLL] === this.poll) continue;
      if (keep.length > 0 && keep.some((prefix) => series.startsWith(prefix))) {
        this.settle(series, state, state[PENDING_POLL] === this.committed);
        if (holdsAny(state)) {
          // Its kept values stand as this poll's: as if it had been read again unchanged.
          for (let at = HEADER; at < state.length; at += SLOT_WIDTH) state[at + NEW_RAW] = state[at + KEPT_RAW]!;
          const offsets = this.offsets.get(series);
          if (offsets) for (let at = 0; at < offsets.length; at += OFFSET_WIDTH) offsets[at + NEW_OFFSET] = offsets[at + KEPT_OFFSET]!;
          state[PENDING_POLL] = this.poll;
          continue;
        }
      }
      this.states.delete(series);
      this.offsets.delete(series);
    }
    this.committed = this.poll;
    this.nextPoll();
  }

  /** A failed poll keeps the state of the last good one. */
  discard(): void {
    this.nextPoll();
  }

  private nextPoll(): void {
    this.poll++;
    this.lastSeries = undefined;
    this.lastState = undefined;
    this.lastOffsets = undefined;
  }

  static in(carryOver: Map<string, unknown>): MonotonicCounters {
    const counters = carried(carryOver, 'monotonic', () => new MonotonicCounters());
    counters.discard();
    return counters;
  }
}

/** Whether the state keeps a value of any counter. */
function holdsAny(state: number[]): boolean {
  for (let at = HEADER; at < state.length; at += SLOT_WIDTH) if (!Number.isNaN(state[at + KEPT_RAW]!)) return true;
  return false;
}

/** `state` with room for `slots` counters, the new ones not seen. */
function grownState(state: number[], slots: number): number[] {
  // A plain array of doubles, not a Float64Array: 100,000 typed arrays, each with a buffer of its
  // own outside the heap, cost more in allocation and garbage collection than the counting.
  const grown = new Array<number>(HEADER + SLOT_WIDTH * slots).fill(Number.NaN);
  for (let i = 0; i < state.length; i++) grown[i] = state[i]!;
  return grown;
}
