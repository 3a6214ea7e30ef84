import type { RenderedFamily } from '../exposition/text-format.js';
import type { DropReason } from '../exposition/sample-sink.js';
import type { FailureCause, LeftOutRequest } from '../broker/failure-cause.js';

/** What one collector last produced on one target, and how its polls are going. */
export interface CollectorState {
  readonly name: string;
  readonly intervalMs: number;
  readonly maxAgeMs: number;
  /** Each poll's deadline (collectors.<name>.timeout); undefined when the runner did not say. */
  readonly timeoutMs: number | undefined;
  /** Families of the last successful poll; replaced whole, never edited. */
  families: readonly RenderedFamily[];
  samples: number;
  skipped: number;
  /** What the last successful poll left out of the broker's answers, by reason. */
  dropped: ReadonlyMap<DropReason, number>;
  attempts: number;
  lastSuccess: boolean | undefined;
  /** Wall-clock time of the last success: served as a timestamp, never used to measure an age. */
  lastSuccessAt: number | undefined;
  /** Monotonic time (performance.now()) of the last success: ages and max_age are measured from it. */
  lastSuccessMonotonicMs: number | undefined;
  lastAttemptAt: number | undefined;
  lastDurationSeconds: number | undefined;
  lastError: string | undefined;
  /** Why the last poll failed; undefined after a success. */
  lastFailure: FailureCause | undefined;
  /** Requests the last successful poll left out: their series are missing. */
  leftOut: readonly LeftOutRequest[];
}

/** What a collector that has dropped nothing holds: one map for them all (10,000 targets × 15 collectors). */
const NOTHING_DROPPED: ReadonlyMap<DropReason, number> = new Map();

/**
 * One target's collector states: each collector's last families and poll status, swapped by each
 * finished poll. Not the snapshot served: the HTTP side reads Expositions that SnapshotStore
 * assembles from this.
 */
export class TargetState {
  readonly collectors = new Map<string, CollectorState>();
  /** Bumped on every change, so the assembled exposition knows when it is out of date. */
  version = 0;
  /** Answers refused for their size: `collector\0path template` → count. */
  readonly refusedAnswers = new Map<string, number>();
  /** The collector whose polls read what the broker says about itself: they decide rabbitmq_up and /-/ready. */
  private upCollector: string | undefined;

  /** `servesUp`: false on a shard that does not own the target's cluster-wide series (rabbitmq_up among them). */
  constructor(
    readonly name: string,
    readonly url: string,
    readonly servesUp = true,
  ) {}

  /** `decidesUp`: this collector's polls decide rabbitmq_up and /-/ready (the one describing the broker). */
  register(name: string, intervalMs: number, maxAgeMs: number, { decidesUp = false, timeoutMs }: { decidesUp?: boolean; timeoutMs?: number } = {}): void {
    if (decidesUp) this.upCollector = name;
    this.collectors.set(name, {
      name,
      intervalMs,
      maxAgeMs,
      timeoutMs,
      families: [],
      samples: 0,
      skipped: 0,
      dropped: NOTHING_DROPPED,
      attempts: 0,
      lastSuccess: undefined,
      lastSuccessAt: undefined,
      lastSuccessMonotonicMs: undefined,
      lastAttemptAt: undefined,
      lastDurationSeconds: undefined,
      lastError: undefined,
      lastFailure: undefined,
      leftOut: [],
    });
  }

  succeeded(
    name: string,
    families: RenderedFamily[],
    durationSeconds: number,
    skipped: number,
    at = Date.now(),
    dropped: ReadonlyMap<DropReason, number> = NOTHING_DROPPED,
    leftOut: readonly LeftOutRequest[] = [],
  ): void {
    const state = this.get(name);
    state.families = families;
    state.samples = families.reduce((n, f) => n + f.samples, 0);
    state.skipped = skipped;
    state.dropped = dropped;
    state.attempts++;
    state.lastSuccess = true;
    state.lastSuccessAt = at;
    state.lastSuccessMonotonicMs = performance.now();
    state.lastAttemptAt = at;
    state.lastDurationSeconds = durationSeconds;
    state.lastError = undefined;
    state.lastFailure = undefined;
    state.leftOut = leftOut;
    this.version++;
  }

  failed(name: string, error: string, durationSeconds: number, at = Date.now(), cause: FailureCause = { kind: 'other' }): void {
    const state = this.get(name);
    state.attempts++;
    state.lastSuccess = false;
    state.lastAttemptAt = at;
    state.lastDurationSeconds = durationSeconds;
    // A failure like the last keeps the held string and cause: 10,000 refused targets then leave
    // nothing new for the old generation on each poll.
    if (state.lastError !== error) state.lastError = error;
    if (state.lastFailure?.kind !== cause.kind || state.lastFailure.status !== cause.status) state.lastFailure = cause;
    this.version++;
  }

  /**
   * A reload replaced the target whose state `previous` is: each collector takes what it knew there
   * until its own first poll here, so scrapes keep the last data (until their max_age) and
   * rabbitmq_up and /-/ready keep their verdict, instead of "down" and "not ready" with a tenth of
   * the series. `withFamilies` false (the names or the shard changed): the poll status only.
   */
  inherit(previous: TargetState, withFamilies: boolean): void {
    for (const [name, before] of previous.collectors) {
      const state = this.collectors.get(name);
      if (!state || state.attempts > 0) continue;
      state.attempts = before.attempts;
      state.lastSuccess = before.lastSuccess;
      state.lastAttemptAt = before.lastAttemptAt;
      state.lastDurationSeconds = before.lastDurationSeconds;
      state.lastError = before.lastError;
      if (!withFamilies) continue;
      state.families = before.families;
      state.samples = before.samples;
      state.skipped = before.skipped;
      state.dropped = before.dropped;
      state.lastSuccessAt = before.lastSuccessAt;
      state.lastSuccessMonotonicMs = before.lastSuccessMonotonicMs;
    }
    for (const [key, count] of previous.refusedAnswers) this.refusedAnswers.set(key, count);
    this.version++;
  }

  answerRefused(collector: string, pathTemplate: string): void {
    const key = `${collector}\u0000${pathTemplate}`;
    this.refusedAnswers.set(key, (this.refusedAnswers.get(key) ?? 0) + 1);
    this.version++;
  }

  /** The collector whose polls decide rabbitmq_up and /-/ready. */
  get upDecidedBy(): CollectorState | undefined {
    return this.upCollector === undefined ? undefined : this.collectors.get(this.upCollector);
  }

  /** rabbitmq_up: the last poll of the broker's self-description succeeded. */
  get up(): boolean {
    return this.upDecidedBy?.lastSuccess === true;
  }

  /** /-/ready: the first poll of the broker's self-description has finished, whatever its outcome. */
  get firstPollAttempted(): boolean {
    return (this.upDecidedBy?.attempts ?? 0) > 0;
  }

  /**
   * Whether a collector's data are within their maximum age at `monotonicNow` (performance.now()):
   * a step of the wall clock (NTP) withdraws nothing and keeps nothing past its age.
   */
  isFresh(state: CollectorState, monotonicNow = performance.now()): boolean {
    return state.lastSuccessMonotonicMs !== undefined && monotonicNow - state.lastSuccessMonotonicMs <= state.maxAgeMs;
  }

  private get(name: string): CollectorState {
    const state = this.collectors.get(name);
    if (!state) throw new Error(`collector ${name} is not registered on target ${this.name}`);
    return state;
  }
}
