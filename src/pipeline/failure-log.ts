import type { Logger } from 'pino';
import { failureHint, type PollFailure, type HintLogin } from './failure-hints.js';

/** How often a lasting failure is logged again by default (log.failure_reminder). */
export const DEFAULT_FAILURE_REMINDER_MS = 5 * 60_000;

export interface FailureLogOptions {
  /** What the hints say about the login (never the password). */
  login?: HintLogin;
  /** How long a failure goes on before it is logged again (read at each failure: a reload changes it). */
  reminderMs?: () => number;
  /** Monotonic milliseconds; tests replace it. */
  now?: () => number;
}

/** One cause of failure on the target, while it lasts. */
interface Ongoing {
  readonly cause: string;
  readonly hint: string | undefined;
  /** Monotonic time it started, and last logged at warn level. */
  readonly since: number;
  loggedAt: number;
  /** Failed polls with this cause, over all collectors. */
  polls: number;
  /** The collectors whose current run of failures has this cause. */
  readonly collectors: Set<string>;
  /** Every collector that failed with it while it lasted. */
  readonly seen: Set<string>;
}

/**
 * Poll failures of one target, logged by cause rather than by collector and poll: a wrong password
 * fails every collector with the same 401, which is one fact for the operator. A cause is logged
 * when it starts (warn, with a hint naming the likely cause and the setting to change), again every
 * `reminderMs` while it lasts (warn: for how long, how many polls, which collectors), and when no
 * collector has it any more (info, with how long it lasted). Other polls failing with it log at debug.
 */
export class PollFailureLog {
  /** Collector name → the key of its current run of failures. */
  private readonly current = new Map<string, string>();
  /** Cause key → the failure while it lasts. */
  private readonly ongoing = new Map<string, Ongoing>();
  private readonly now: () => number;
  private readonly reminderMs: () => number;

  constructor(
    private readonly log: Logger,
    private readonly options: FailureLogOptions = {},
  ) {
    this.now = options.now ?? (() => performance.now());
    this.reminderMs = options.reminderMs ?? (() => DEFAULT_FAILURE_REMINDER_MS);
  }

  /** `failure`: what the runner knows of it, for the hint (absent: no hint). */
  failed(collector: string, cause: string, fields: Record<string, unknown>, failure?: PollFailure): void {
    const hint = failure ? failureHint(failure, this.options.login) : undefined;
    // A poll deadline names its collector's setting: each collector's is a cause of its own.
    const key = hint === undefined ? cause : `${cause}\u0000${hint}`;
    const previous = this.current.get(collector);
    if (previous !== undefined && previous !== key) this.leave(collector, previous, 'poll failure changed cause');
    // The same cause again keeps the key held (a new copy would live an interval, then be old-generation garbage).
    if (previous !== key) this.current.set(collector, key);
    const now = this.now();
    let failing = this.ongoing.get(key);
    if (!failing) {
      failing = { cause, hint, since: now, loggedAt: now, polls: 1, collectors: new Set([collector]), seen: new Set([collector]) };
      this.ongoing.set(key, failing);
      this.log.warn({ collector, cause, ...(hint ? { hint } : {}), ...fields }, 'poll failed');
      return;
    }
    failing.polls++;
    failing.collectors.add(collector);
    failing.seen.add(collector);
    if (now - failing.loggedAt >= this.reminderMs()) {
      failing.loggedAt = now;
      this.log.warn({ ...this.summary(failing, now), ...(hint ? { hint } : {}) }, 'polls still failing');
    } else {
      this.log.debug({ collector, cause, ...fields }, 'poll failed');
    }
  }

  succeeded(collector: string): void {
    const key = this.current.get(collector);
    if (key === undefined) return;
    this.current.delete(collector);
    this.leave(collector, key, 'polls succeed again');
  }

  /** The collector's run of failures with this cause ended; the cause ends when no collector has it. */
  private leave(collector: string, key: string, message: string): void {
    const failing = this.ongoing.get(key);
    if (!failing) return;
    failing.collectors.delete(collector);
    if (failing.collectors.size > 0) {
      this.log.debug({ collector, cause: failing.cause }, message);
      return;
    }
    this.ongoing.delete(key);
    this.log.info({ collector, ...this.summary(failing, this.now()) }, message);
  }

  private summary(failing: Ongoing, now: number): Record<string, unknown> {
    const ms = now - failing.since;
    return {
      cause: failing.cause,
      failing_for: durationText(ms),
      failing_for_seconds: Math.round(ms / 1000),
      failed_polls: failing.polls,
      collectors: [...failing.seen],
    };
  }
}

/** `1h2m3s`, `4m0s`, `12s`: how long a failure lasted, for people. */
export function durationText(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}
