import { exporterMetrics as E } from '../exporter/metrics.js';
import { ManagementError } from '../../broker/errors.js';
import { type FailureCause, failureCause } from '../../broker/failure-cause.js';
import { carried } from './carried.js';
import type { CollectContext } from './collector.js';

/**
 * Parts of a poll that may fail without failing it (a vhost's list, the node memory breakdown, one
 * health check): they end before the poll's deadline, so that what did arrive is still served, and
 * a failing part is logged when it starts failing, when its cause changes and when it ends, and
 * served as rabbitmq_exporter_collector_part_failed while it lasts.
 */

/** The poll's last tenth is kept for writing what arrived: optional requests still running then end. */
const WRITE_RESERVE = 0.1;

/** Aborts when the parts of the poll must stop so that the poll ends in time; undefined without a deadline. */
export function partsCutOff(ctx: Pick<CollectContext<unknown>, 'limits'>): AbortSignal | undefined {
  const limits = ctx.limits;
  if (!limits) return undefined;
  return AbortSignal.timeout(Math.max(1, Math.round(limits.deadlineAt - limits.timeoutMs * WRITE_RESERVE - performance.now())));
}

/** A part's request gets at most this share of the poll's deadline unless configured otherwise. */
const DEFAULT_SHARE = 1 / 3;

/** The deadline of one optional request: `configuredMs`, else a third of the poll's (none without a deadline). */
export function partTimeoutMs(ctx: Pick<CollectContext<unknown>, 'limits'>, configuredMs?: number): number | undefined {
  return configuredMs ?? (ctx.limits ? Math.max(1, Math.round(ctx.limits.timeoutMs * DEFAULT_SHARE)) : undefined);
}

/** Why a part failed, as a label value: the request error's reason, poll_deadline when cut off. */
export function failureReason(error: unknown, cutOff: AbortSignal | undefined): string {
  if (cutOff?.aborted && error instanceof ManagementError && error.kind === 'aborted') return 'poll_deadline';
  if (cutOff?.aborted && error instanceof PartCutOff) return 'poll_deadline';
  return error instanceof ManagementError ? error.reason : 'collector_error';
}

/**
 * The kind of a part's (or a poll's) failure: a part ended by the cut-off, a tenth before the
 * poll's deadline, failed on the poll's deadline too, whichever timer fired first.
 */
export function partFailureCause(error: unknown, pollDeadlinePassed: boolean): FailureCause {
  return failureCause(error, pollDeadlinePassed || error instanceof PartCutOff);
}

/** A part still running when the cut-off came. */
export class PartCutOff extends Error {
  constructor(part: string, options?: ErrorOptions) {
    super(`${part}: still running when the poll had to end (its deadline is near)`, options);
  }
}

/** The optional parts of one collector that failed at their last attempt, with why (in its carryOver). */
export class PartFailures {
  private readonly failing = new Map<string, string>();

  static in(carryOver: Map<string, unknown>): PartFailures {
    return carried(carryOver, 'part failures', () => new PartFailures());
  }

  /** Records a failure; logs it when the part starts failing or its reason changes. `held`: what is served instead. */
  failed(ctx: Pick<CollectContext<unknown>, 'log'>, part: string, reason: string, error: unknown, held: string): void {
    const previous = this.failing.get(part);
    this.failing.set(part, reason);
    if (previous === reason) return;
    ctx.log.warn(
      { part, reason, path: error instanceof ManagementError ? error.pathname : undefined, cause: error instanceof Error ? error.message : String(error) },
      `an optional part of the poll failed (${part}): ${held}; the rest of the poll is served`,
    );
  }

  succeeded(ctx: Pick<CollectContext<unknown>, 'log'>, part: string): void {
    const previous = this.failing.get(part);
    if (previous === undefined) return;
    this.failing.delete(part);
    ctx.log.info({ part, reason: previous }, `the optional part ${part} succeeds again`);
  }

  /** rabbitmq_exporter_collector_part_failed for each part failing. */
  report(ctx: Pick<CollectContext<unknown>, 'sink'>, collector: string): void {
    for (const [part, reason] of this.failing) ctx.sink.add(E.partFailed, { collector, part, reason }, 1);
  }
}
