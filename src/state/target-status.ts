import type { TargetState } from './target-state.js';

/** One collector's last poll as the landing page shows it: a copy, taken at one moment. */
export interface CollectorStatus {
  readonly name: string;
  /** undefined: no poll finished yet. */
  readonly lastSuccess: boolean | undefined;
  readonly intervalMs: number;
  readonly lastAttemptAt: number | undefined;
  readonly lastSuccessAt: number | undefined;
  readonly lastDurationSeconds: number | undefined;
  /** Samples a scrape serves now: 0 once the data are past their maximum age. */
  readonly samplesServed: number;
  readonly lastError: string | undefined;
}

/** How a target's polls are going, for people (the landing page): no families, nothing live. */
export interface TargetStatus {
  readonly name: string;
  readonly url: string;
  /** rabbitmq_up. */
  readonly up: boolean;
  /** Why the broker counts as down: the last error of the poll deciding rabbitmq_up. */
  readonly downReason: string | undefined;
  readonly collectors: readonly CollectorStatus[];
}

/** `monotonicNow`: the moment, on the monotonic clock, whose served samples are counted. */
export function targetStatus(state: TargetState, monotonicNow = performance.now()): TargetStatus {
  return {
    name: state.name,
    url: state.url,
    up: state.up,
    downReason: state.up ? undefined : state.upDecidedBy?.lastError,
    collectors: [...state.collectors.values()].map((c) => ({
      name: c.name,
      lastSuccess: c.lastSuccess,
      intervalMs: c.intervalMs,
      lastAttemptAt: c.lastAttemptAt,
      lastSuccessAt: c.lastSuccessAt,
      lastDurationSeconds: c.lastDurationSeconds,
      samplesServed: state.isFresh(c, monotonicNow) ? c.samples : 0,
      lastError: c.lastError,
    })),
  };
}
