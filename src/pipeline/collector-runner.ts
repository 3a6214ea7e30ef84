import type { Logger } from 'pino';
import type { BrokerInfo } from '../broker/broker-info.js';
import type { BrokerInfoReader } from '../broker/broker-info-reader.js';
import { Deadline } from '../broker/deadline.js';
import { ManagementError } from '../broker/errors.js';
import { pathTemplate } from '../broker/answer-caps.js';
import type { ManagementClient } from '../broker/management-client.js';
import type { AnyCollector } from '../collectors/kit/collector.js';
import { partFailureCause } from '../collectors/kit/optional-part.js';
import type { CollectorConfig, TargetSetup } from '../config/exporter-config.js';
import { collectHere, type PollResult, sinkProfileOf } from './collect-once.js';
import { collectGarbageNow } from './poll-thread/collect-garbage.js';
import type { PollThread } from './poll-thread/poll-thread.js';
import type { MetricDef } from '../model/metric-def.js';
import type { RenderedFamily } from '../exposition/text-format.js';
import type { TargetProfile } from '../profiles/profiles.js';
import type { TargetShare } from '../model/shard-assignment.js';
import type { TargetState } from './target-state.js';
import type { PollFailureLog } from './failure-log.js';

/**
 * The least time from the start of one poll of a collector to the start of its next, whatever
 * the configuration or a slow poll says: nothing can make the exporter poll in a tight loop.
 */
export const MIN_POLL_SPACING_MS = 1000;

/** A poll's start that fires this much after it was due is moved (see schedule). */
const LATE_START_MS = 50;

/** Node fires a longer timer after 1 ms; the config refuses such durations, this is the last guard. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface RunnerDeps {
  client: ManagementClient;
  /** What the broker says about itself: read by the runner of the collector that describesBroker. */
  brokerInfoReader: BrokerInfoReader;
  state: TargetState;
  log: Logger;
  /** Fraction of the interval by which each start may move early or late. */
  jitter: number;
  backoffMaxMs: number;
  /** Told after every finished poll (the snapshot is re-assembled). */
  onPollFinished: () => void;
  /**
   * Told when the collector describing the broker succeeds after failures: the broker answers
   * again, and the target cuts the other collectors' backoff short (retrySoon).
   */
  onBrokerBack?: () => void;
  /**
   * Told after each poll of the collector describing the broker that got an answer from it (a
   * success, or an HTTP error, an answer that is not JSON...); not after one that reached nobody
   * (refused, reset, DNS, TLS, no answer in time). The target starts its other collectors then.
   */
  onBrokerAnswered?: () => void;
  /** Where failures are logged, once per cause for the whole target. */
  failures: PollFailureLog;
  /** What of the target this replica serves (absent: everything). */
  share?: TargetShare;
  /** The target's naming profile, chosen once for the target (absent: the native names). */
  profile?: TargetProfile;
  random?: () => number;
  /** Where the collectors set to (collectors.<name>.poll_thread) poll, with the target's setup it is given. */
  thread?: { pollThread: PollThread; key: string; setup: TargetSetup };
  /** Only tests set this below MIN_POLL_SPACING_MS, to run schedules quickly. */
  minSpacingMs?: number;
}

/**
 * Polls one collector on one target, forever: one poll at a time (never overlapping
 * itself), start-to-start on its interval with jitter, with a deadline per poll, and
 * exponential backoff while it fails, except the collector describing the broker, which keeps
 * its interval so that rabbitmq_up turns 1 within one interval of the broker answering again.
 * The broker's slowness never reaches a scrape. Times here are monotonic (performance.now()):
 * a step of the wall clock moves no poll.
 */
export class CollectorRunner {
  /** The start waiting to fire; undefined while a poll runs. */
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Monotonic time of the last poll's start. */
  private lastStart: number | undefined;
  private stopped = false;
  private failures = 0;
  /** The poll in progress: stop() cancels it. */
  private poll: Deadline | undefined;
  /** What the collector keeps from poll to poll; made at its first poll (10,000 idle targets hold none). */
  private carried: Map<string, unknown> | undefined;
  /** Made when first used: a pino child costs kilobytes, and a fleet's idle targets seldom log. */
  private childLog: Logger | undefined;
  private readonly excluded: ReadonlySet<MetricDef>;
  /** Its polls run in the poll thread: from the start, or since one of its polls was big enough (collectors.<name>.poll_thread). */
  private inThread: boolean;
  /** Whether the broker's size was looked at for where its first poll runs (placeFirstPoll). */
  private placed = false;

  constructor(
    private readonly collector: AnyCollector,
    private readonly config: CollectorConfig,
    private readonly deps: RunnerDeps,
  ) {
    this.excluded = deps.profile?.excluded(collector.metrics) ?? NOTHING_EXCLUDED;
    this.inThread = config.pollThreadFromSeries === 0 && deps.thread !== undefined;
    deps.state.register(collector.name, config.intervalMs, config.maxAgeMs, { decidesUp: collector.describesBroker === true, timeoutMs: config.timeoutMs });
  }

  private get log(): Logger {
    this.childLog ??= this.deps.log.child({ collector: this.collector.name });
    return this.childLog;
  }

  private get carryOver(): Map<string, unknown> {
    this.carried ??= new Map();
    return this.carried;
  }

  get name(): string {
    return this.collector.name;
  }

  /** Its collector reads what the broker says about itself (started first). */
  get describesBroker(): boolean {
    return this.collector.describesBroker === true;
  }

  start(initialDelayMs = 0): void {
    this.schedule(initialDelayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.poll?.abort(STOPPING);
    await this.running;
  }

  /**
   * The broker answers again: a collector waiting out its backoff polls after `delayMs` instead
   * (still at least the least spacing after its last start). Nothing changes for one that is
   * polling, or not failing.
   */
  retrySoon(delayMs = 0): void {
    if (this.stopped || this.failures === 0 || this.timer === undefined) return;
    clearTimeout(this.timer);
    this.schedule(delayMs);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const spacing = this.deps.minSpacingMs ?? MIN_POLL_SPACING_MS;
    const earliest = this.lastStart === undefined ? 0 : this.lastStart + spacing - performance.now();
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, earliest, delayMs));
    const due = performance.now() + delay;
    this.arm(delay, () => {
      // Fired late: the loop was held (a long garbage collection, a loaded machine), and every
      // start that came due meanwhile fires in this one turn of the loop: with a fleet, a thousand
      // polls in one go, holding the loop again. Each starts instead at a random moment within as
      // long as it was late, as they would have come had the loop been free.
      const late = performance.now() - due;
      if (late > LATE_START_MS) this.arm(this.random() * Math.min(late, this.config.intervalMs / 4), () => this.begin());
      else this.begin();
    });
  }

  private arm(delayMs: number, fire: () => void): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      fire();
    }, delayMs);
    this.timer.unref?.();
  }

  private begin(): void {
    if (this.stopped) return;
    const startedAt = performance.now();
    this.lastStart = startedAt;
    this.running = this.pollOnce().then(() => {
      this.running = undefined;
      this.schedule(this.nextDelay(startedAt));
    });
  }

  private random(): number {
    return (this.deps.random ?? Math.random)();
  }

  private nextDelay(startedAt: number): number {
    const interval = this.config.intervalMs;
    // The collector describing the broker never backs off: its one small request per interval
    // is what tells that the broker is back.
    if (this.failures > 0 && !this.describesBroker) {
      // 1, 2, 4, 8 intervals, capped: the first retry comes after one interval, so a broker
      // that went down is reported within one interval and one that came back is seen soon.
      const backoff = interval * 2 ** Math.min(this.failures - 1, 3);
      return Math.min(backoff, Math.max(interval, this.deps.backoffMaxMs));
    }
    const jittered = interval * (1 + this.deps.jitter * (2 * this.random() - 1));
    return startedAt + jittered - performance.now();
  }

  /**
   * With poll_thread: auto, before the collector's first poll: when what the broker says of its
   * size (Collector.expectedSeries) reaches the threshold, the first poll already runs in the poll
   * thread. Otherwise a big collector's first poll would build its state on the main thread and the
   * next build it again in the thread, beside the main thread's heap not yet given back: at 100,000
   * simulated queues VmHWM 406.6 MB where polling in the thread from the start peaked at 330.1 MB.
   */
  private placeFirstPoll(broker: BrokerInfo): void {
    this.placed = true;
    const from = this.config.pollThreadFromSeries;
    if (this.inThread || from === undefined || !this.deps.thread || !this.collector.expectedSeries) return;
    const expected = this.collector.expectedSeries({ broker, options: this.config.options, log: this.log, carryOver: this.carryOver });
    if (expected === undefined || expected < from) return;
    this.inThread = true;
    this.carried = undefined;
    this.log.info(
      { expected_series: expected, poll_thread_from_series: from },
      `its polls move to the poll thread: by the broker's object_totals its polls serve about collectors.${this.collector.name}.poll_thread_from_series series or more`,
    );
  }

  /**
   * With poll_thread: auto, a poll on the main thread that served enough series moves the
   * collector's next polls to the poll thread, for good (until a reload). Its carry-over stays
   * behind and is let go, collected at once: the thread starts its own, as at the exporter's start.
   */
  private moveToThreadIfBig(families: readonly RenderedFamily[]): void {
    const from = this.config.pollThreadFromSeries;
    if (from === undefined || !this.deps.thread) return;
    let series = 0;
    for (const family of families) series += family.samples;
    if (series < from) return;
    this.inThread = true;
    this.carried = undefined;
    collectGarbageNow();
    this.log.info(
      { series, poll_thread_from_series: from },
      `its polls move to the poll thread: its last poll served at least collectors.${this.collector.name}.poll_thread_from_series series`,
    );
  }

  /** One poll; never throws. */
  async pollOnce(): Promise<void> {
    const { state, client, brokerInfoReader } = this.deps;
    const started = performance.now();
    // Aborted at the deadline, by stop(), and when the poll ends: a failed poll's other requests stop instead of reading on.
    const deadline = new Deadline(this.config.timeoutMs);
    this.poll = deadline;
    if (this.stopped) deadline.abort(STOPPING);
    const signal = deadline.signal;
    try {
      // One reading of /api/overview per poll of the collector describing the broker; the others reuse the latest.
      const ownReading = this.collector.describesBroker ? await brokerInfoReader.read(signal) : undefined;
      const broker = ownReading?.info ?? (await brokerInfoReader.latest(signal));
      if (!this.placed) this.placeFirstPoll(broker);
      const limits = { deadlineAt: started + this.config.timeoutMs, timeoutMs: this.config.timeoutMs, maxAgeMs: this.config.maxAgeMs };
      const thread = this.inThread ? this.deps.thread : undefined;
      const polled = thread
        ? thread.pollThread.collect({ target: thread.key, setup: thread.setup, collector: this.collector.name, broker, remainingMs: limits.deadlineAt - performance.now(), logLevel: this.log.level }, signal, (counts) => {
            client.requests += counts.requests;
            client.bytesRead += counts.bytesRead;
          })
        : collectHere({
            collector: this.collector,
            client,
            signal,
            broker,
            share: this.deps.share,
            profile: sinkProfileOf(this.deps.profile, this.collector, broker, this.excluded),
            log: this.log,
            options: this.config.options,
            carryOver: this.carryOver,
            brokerReport: ownReading,
            limits,
            lastServed: state.collectors.get(this.collector.name)?.families,
          });
      // A collect that ignores its signal must not hold the loop: the poll fails at the deadline.
      const stuck = failAfterAbort(signal, this.config.timeoutMs, thread ? THREAD_ABORT_GRACE_MS : ABORT_GRACE_MS);
      let result: PollResult;
      try {
        result = await Promise.race([polled, stuck.failed]);
      } finally {
        stuck.done();
      }
      if (deadline.passed) throw new Error(`poll ran past its deadline of ${this.config.timeoutMs} ms`);
      const seconds = (performance.now() - started) / 1000;
      if (result.skipped > 0) this.log.debug({ skipped: result.skipped }, 'values that were null or not numbers were left out');
      state.succeeded(this.collector.name, result.families, seconds, result.skipped, Date.now(), result.dropped, result.leftOut);
      if (!thread) this.moveToThreadIfBig(result.families);
      this.deps.failures.succeeded(this.collector.name);
      const wasFailing = this.failures > 0;
      this.failures = 0;
      if (wasFailing && this.describesBroker) this.deps.onBrokerBack?.();
      if (this.describesBroker) this.deps.onBrokerAnswered?.();
    } catch (error) {
      const elapsedMs = performance.now() - started;
      const seconds = elapsedMs / 1000;
      this.failures++;
      // By the clock too: a poll thread aborts at the deadline by its own timer, and its error can
      // arrive here before this thread's deadline timer has run.
      const deadlinePassed = deadline.passed || (!this.stopped && elapsedMs >= this.config.timeoutMs);
      const cause = describe(error, deadlinePassed, this.config.timeoutMs);
      if (error instanceof ManagementError && error.kind === 'too_large') state.answerRefused(this.collector.name, pathTemplate(error.pathname));
      state.failed(
        this.collector.name,
        error instanceof ManagementError ? `${error.pathname}: ${cause}` : cause,
        seconds,
        Date.now(),
        partFailureCause(error, deadlinePassed),
      );
      if (this.describesBroker && !this.stopped && brokerAnswered(error, deadlinePassed)) this.deps.onBrokerAnswered?.();
      if (!this.stopped) {
        this.deps.failures.failed(this.collector.name, cause, {
          path: error instanceof ManagementError ? error.pathname : undefined,
          reason: error instanceof ManagementError ? error.reason : 'collector_error',
          consecutive_failures: this.failures,
        }, { collector: this.collector.name, error, deadlinePassed, timeoutMs: this.config.timeoutMs });
      }
    }
    deadline.end();
    deadline.abort(POLL_ENDED);
    this.poll = undefined;
    this.deps.onPollFinished();
  }
}

/** A collector whose profile excludes none of its families: one set for them all. */
const NOTHING_EXCLUDED: ReadonlySet<MetricDef> = new Set();

/** Whether a failed poll heard from the broker: not when nothing answered (refused, reset, DNS, TLS, a deadline). */
function brokerAnswered(error: unknown, deadlinePassed: boolean): boolean {
  if (deadlinePassed) return false;
  if (!(error instanceof ManagementError)) return true;
  return error.kind !== 'network' && error.kind !== 'timeout' && error.kind !== 'aborted';
}

/** Why a poll's signal ends: made once, not per poll (an abort without a reason builds a DOMException with a stack trace). */
const STOPPING = new Error('the exporter is stopping');
const POLL_ENDED = new Error('the poll ended');

/** Time a cancelled collect gets to end with its own error (naming the request it was in). */
const ABORT_GRACE_MS = 250;
/**
 * The same for a collect in the poll thread, which ends at the deadline by its own clock: its
 * answer then still crosses to this thread, and a loaded machine may schedule either late (a
 * quarter of a second was missed with a run queue of ten or more on two cores).
 */
const THREAD_ABORT_GRACE_MS = 2_000;

/**
 * Rejects `graceMs` after `signal` aborts; `done()` (the collect ended) lets go of the signal
 * and of the timer, so an ended poll leaves nothing behind.
 */
function failAfterAbort(signal: AbortSignal, timeoutMs: number, graceMs: number): { failed: Promise<never>; done: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let fail = () => {};
  const failed = new Promise<never>((_resolve, reject) => {
    fail = () => {
      timer = setTimeout(() => reject(new Error(`the poll's deadline of ${timeoutMs} ms passed and the collector did not stop`)), graceMs).unref();
    };
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  return {
    failed,
    done: () => {
      signal.removeEventListener('abort', fail);
      clearTimeout(timer);
    },
  };
}

function describe(error: unknown, deadlinePassed: boolean, timeoutMs: number): string {
  if (deadlinePassed && error instanceof ManagementError && error.kind === 'aborted') {
    return `the poll's deadline of ${timeoutMs} ms passed`;
  }
  if (error instanceof ManagementError) return error.detail;
  return error instanceof Error ? error.message : String(error);
}
