import type { FailureCause, LeftOutRequest } from '../broker/failure-cause.js';
import type { CollectorState, TargetState } from './target-state.js';

/**
 * A collector's state as the landing page shows it, worst first: its last poll failed; it
 * succeeded but left requests out (refused, or one part failed); no poll finished yet; all well.
 */
export type CollectorCondition = 'failing' | 'partial' | 'pending' | 'ok';

/** One collector's last poll as the landing page shows it: a copy, taken at one moment. */
export interface CollectorStatus {
  readonly name: string;
  readonly condition: CollectorCondition;
  /** undefined: no poll finished yet. */
  readonly lastSuccess: boolean | undefined;
  readonly intervalMs: number;
  /** collectors.<name>.timeout; undefined when unknown. */
  readonly timeoutMs: number | undefined;
  readonly lastAttemptAt: number | undefined;
  readonly lastSuccessAt: number | undefined;
  readonly lastDurationSeconds: number | undefined;
  /** Samples a scrape serves now: 0 once the data are past their maximum age. */
  readonly samplesServed: number;
  readonly lastError: string | undefined;
  /** Why the last poll failed, when it did. */
  readonly lastFailure: FailureCause | undefined;
  /** What the last successful poll left out. */
  readonly leftOut: readonly LeftOutRequest[];
}

/** What the broker says about itself: the fields of BrokerInfo (src/broker/) the page shows. */
export interface BrokerIdentity {
  readonly productName: string;
  readonly productVersion: string;
  readonly clusterName: string;
  readonly node: string;
  /** Which simulator answered instead of a broker (absent for a real one): the page says so. */
  readonly simulation?: string;
}

/** Who the exporter is to the broker and its limits: for the page's hints. Never the password. */
export interface PageLogin {
  readonly username: string;
  /** Where the password came from ("default", "config file", "environment variable ...", "file /path"). */
  readonly passwordSource: string;
  /** target.max_response_bytes. */
  readonly maxResponseBytes: number;
}

/** The one-line verdict on a target: `starting` until the first poll of the broker's self-description ends. */
export type VerdictLevel = 'down' | 'degraded' | 'starting' | 'healthy';

export interface Verdict {
  readonly level: VerdictLevel;
  /** Why, in one line. */
  readonly why: string;
}

/** How a target's polls are going, for people (the landing page): no families, nothing live. */
export interface TargetStatus {
  readonly name: string;
  readonly url: string;
  /** rabbitmq_up. */
  readonly up: boolean;
  /** Why the broker counts as down: the last error of the poll deciding rabbitmq_up. */
  readonly downReason: string | undefined;
  /** The collector whose polls decide rabbitmq_up. */
  readonly upCollector: string | undefined;
  readonly verdict: Verdict;
  /** The latest answer of /api/overview; undefined before the first. */
  readonly broker: BrokerIdentity | undefined;
  readonly access: PageLogin | undefined;
  /** Worst first (failing, partial, pending, ok), then in the order they were registered. */
  readonly collectors: readonly CollectorStatus[];
  /** Collectors not polled until the broker answers (nothing has answered at its address yet). */
  readonly waitingForBroker: readonly string[];
}

const CONDITION_RANK: Readonly<Record<CollectorCondition, number>> = { failing: 0, partial: 1, pending: 2, ok: 3 };

/** How serious a verdict is: lower sorts first. */
export const VERDICT_RANK: Readonly<Record<VerdictLevel, number>> = { down: 0, degraded: 1, starting: 2, healthy: 3 };

function conditionOf(c: CollectorState): CollectorCondition {
  if (c.lastSuccess === undefined) return 'pending';
  if (!c.lastSuccess) return 'failing';
  return c.leftOut.length > 0 ? 'partial' : 'ok';
}

function collectorStatus(state: TargetState, c: CollectorState, monotonicNow: number): CollectorStatus {
  return {
    name: c.name,
    condition: conditionOf(c),
    lastSuccess: c.lastSuccess,
    intervalMs: c.intervalMs,
    timeoutMs: c.timeoutMs,
    lastAttemptAt: c.lastAttemptAt,
    lastSuccessAt: c.lastSuccessAt,
    lastDurationSeconds: c.lastDurationSeconds,
    samplesServed: c.lastSuccessAt !== undefined && state.isFresh(c, monotonicNow) ? c.samples : 0,
    lastError: c.lastError,
    lastFailure: c.lastFailure,
    leftOut: c.leftOut,
  };
}

function names(collectors: readonly CollectorState[]): string {
  return collectors.map((c) => c.name).join(', ');
}

function collectorsCount(n: number): string {
  return `${n} collector${n === 1 ? '' : 's'}`;
}

/**
 * Down when the broker does not answer, degraded when any collector fails or leaves requests out.
 * One pass over the live state, copying nothing: the landing page asks it of every target (10,000
 * in a fleet) and copies the whole status only of those it shows.
 */
export function targetVerdict(state: TargetState, waitingForBroker = 0): Verdict {
  const decider = state.upDecidedBy;
  if (state.servesUp && decider !== undefined) {
    if (decider.attempts === 0) return { level: 'starting', why: 'the first poll of the broker has not finished yet' };
    if (!state.up) {
      const waiting = waitingForBroker > 0 ? `; the ${waitingForBroker} other collectors wait until the broker answers` : '';
      return { level: 'down', why: `${decider.name} failed: ${decider.lastError ?? 'no answer'}${waiting}` };
    }
  }
  const unwell: Record<Exclude<CollectorCondition, 'ok'>, CollectorState[]> = { failing: [], partial: [], pending: [] };
  for (const c of state.collectors.values()) {
    const condition = conditionOf(c);
    if (condition !== 'ok') unwell[condition].push(c);
  }
  const { failing, partial, pending } = unwell;
  const total = state.collectors.size;
  if (failing.length > 0 || partial.length > 0) {
    const parts = [];
    if (failing.length > 0) {
      const never = failing.filter((c) => c.lastSuccessAt === undefined);
      parts.push(`${failing.length} of ${collectorsCount(total)} failing (${names(failing)})`);
      if (never.length > 0) parts.push(`never succeeded: ${names(never)}`);
    }
    if (partial.length > 0) parts.push(`requests left out by ${names(partial)}`);
    return { level: 'degraded', why: parts.join('; ') };
  }
  if (pending.length === total) return { level: 'starting', why: 'no poll has finished yet' };
  const polled = `${collectorsCount(total - pending.length)} polled, all answering`;
  return { level: 'healthy', why: pending.length > 0 ? `${polled}; not polled yet: ${names(pending)}` : polled };
}

/**
 * `waitingForBroker`: the collectors not polled until the broker answers. `monotonicNow`: the
 * moment, on the monotonic clock, whose served samples are counted.
 */
export function targetStatus(
  state: TargetState,
  broker?: BrokerIdentity,
  access?: PageLogin,
  waitingForBroker: readonly string[] = [],
  monotonicNow = performance.now(),
): TargetStatus {
  const collectors = [...state.collectors.values()]
    .map((c) => collectorStatus(state, c, monotonicNow))
    // Stable: registration order within one condition.
    .sort((a, b) => CONDITION_RANK[a.condition] - CONDITION_RANK[b.condition]);
  return {
    name: state.name,
    url: state.url,
    up: state.up,
    downReason: state.up ? undefined : state.upDecidedBy?.lastError,
    upCollector: state.upDecidedBy?.name,
    verdict: targetVerdict(state, waitingForBroker.length),
    broker: broker && { productName: broker.productName, productVersion: broker.productVersion, clusterName: broker.clusterName, node: broker.node, ...(broker.simulation ? { simulation: broker.simulation } : {}) },
    access,
    collectors,
    waitingForBroker: [...waitingForBroker],
  };
}
