import { parseVersion } from '../../broker/broker-info.js';
import { absence } from '../../broker/absence.js';
import { ManagementError } from '../../broker/errors.js';
import { expectList } from '../../broker/expect-list.js';
import type { CollectContext, RequestLimits } from './collector.js';
import { failureReason, PartCutOff, PartFailures, partFailureCause, partsCutOff } from './optional-part.js';

/**
 * Polls made of independent requests to paths that may be absent (plugin off, older version)
 * or refused to the exporter's user: shared by the health_checks, limits, federation, shovels,
 * feature_flags and inventory collectors.
 */

/** `ok: false`: the broker answered, this poll, that the path is absent or not for this user. */
export type Fetched<T> = { ok: true; body: T } | { ok: false };

export interface OptionalEndpoint {
  path: string;
  query?: Record<string, string | number | boolean>;
  /**
   * Set when a 401/403 can mean the exporter's user lacks a tag or permission this endpoint needs
   * (not bad credentials): such an answer is then treated as absent, and this says why.
   */
  refusedBecause?: string;
  /** What an absent path means, for the log line (e.g. "the shovel management plugin is not enabled"). */
  absentMeans: string;
  /** Limits of the request (a status besides 2xx whose body is the answer). */
  limits?: RequestLimits;
}

export function httpStatus(error: unknown): number | undefined {
  return error instanceof ManagementError && error.kind === 'http_status' ? error.status : undefined;
}

/**
 * Whether the exporter's credentials work, asked once per poll (keyed by the poll's signal):
 * /api/whoami answers any user that may log in to the management API. A 401 on a path while
 * this answers is a missing tag or permission; a 401 on both is bad credentials, a failure.
 */
const credentialsChecks = new WeakMap<AbortSignal, Promise<{ name?: unknown } | undefined>>();

/** The exporter's user as /api/whoami tells it (asked once per poll), or undefined when its credentials fail. */
export function whoAmI(ctx: Pick<CollectContext<unknown>, 'api' | 'signal'>): Promise<{ name?: unknown } | undefined> {
  let check = credentialsChecks.get(ctx.signal);
  if (!check) {
    check = ctx.api.get<{ name?: unknown }>('/api/whoami').then(
      (answer) => answer ?? {},
      () => undefined,
    );
    credentialsChecks.set(ctx.signal, check);
  }
  return check;
}

async function credentialsWork(ctx: CollectContext<unknown>): Promise<boolean> {
  return (await whoAmI(ctx)) !== undefined;
}

/**
 * GETs a path that may not exist on this broker (plugin off, older version) or may need more
 * than the exporter's user has. Such an answer gives `{ ok: false }` and is logged once per
 * change; the path is asked again at every poll, so its series come back at the first poll
 * after the cause is gone (these answers are tiny). Every other failure throws, as
 * ctx.api.get does, and so does a refusal while the credentials themselves fail.
 */
export async function getRemembered<T>(ctx: CollectContext<unknown>, endpoint: OptionalEndpoint): Promise<Fetched<T>> {
  const key = `absent ${endpoint.path}`;
  const remembered = ctx.carryOver.get(key) as number | undefined;
  let body: T;
  try {
    body = await ctx.api.get<T>(endpoint.path, endpoint.query, endpoint.limits);
  } catch (error) {
    const meaning = absence(error);
    const refused = meaning === 'refused' && endpoint.refusedBecause !== undefined;
    if (meaning !== 'absent' && !(refused && (await credentialsWork(ctx)))) throw error;
    const status = httpStatus(error);
    // The credentials work (checked above): a 401 here, as a 403, means a tag or permission is missing.
    if (refused) ctx.leftOut?.({ path: endpoint.path, cause: { kind: 'forbidden', status }, why: `refused to the exporter's user: ${endpoint.refusedBecause}` });
    if (remembered !== status) {
      if (refused) {
        ctx.log.warn(
          { path: endpoint.path, status, cause: (error as Error).message },
          `the exporter's user may not read this path (${endpoint.refusedBecause}): its series are left out while it is refused`,
        );
      } else {
        ctx.log.info({ path: endpoint.path, status }, `${endpoint.absentMeans}: no series while the path is absent`);
      }
      ctx.carryOver.set(key, status);
    }
    return { ok: false };
  }
  if (remembered !== undefined) {
    ctx.carryOver.delete(key);
    ctx.log.info({ path: endpoint.path }, 'the path answers again');
  }
  return { ok: true, body };
}

/** One independent request of a poll and how its answer becomes samples. */
export interface Part {
  readonly name: string;
  /** The request; what it resolves to writes the answer's samples (in turns, for a long list). */
  fetch(): Promise<() => void | Promise<void>>;
}

/** A part whose answer is written by `emit`; typed here, erased in the list. */
export function part<T>(name: string, fetch: () => Promise<T>, emit: (result: T) => void | Promise<void>): Part {
  return {
    name,
    fetch: async () => {
      const result = await fetch();
      return () => emit(result);
    },
  };
}

/**
 * Runs the parts' requests at once (the client bounds concurrency), then writes their samples
 * in the parts' order, so the exposition's order does not depend on which answer came first.
 * A part that fails, or is still running when the poll must end (see optional-part.ts), is left
 * out: logged when it starts failing, and served as rabbitmq_exporter_collector_part_failed;
 * only when every part fails does the poll fail (with the first error).
 */
export async function collectParts(ctx: CollectContext<unknown>, collector: string, parts: readonly Part[]): Promise<void> {
  const cutOff = partsCutOff(ctx);
  const stopped = (name: string) =>
    new Promise<never>((_resolve, reject) => {
      if (!cutOff) return;
      const stop = () => reject(new PartCutOff(name));
      if (cutOff.aborted) stop();
      else cutOff.addEventListener('abort', stop, { once: true });
    });
  const results = await Promise.allSettled(parts.map((p) => Promise.race([p.fetch(), stopped(p.name)])));
  const failures: { name: string; reason: unknown }[] = [];
  const partFailures = PartFailures.in(ctx.carryOver);
  for (const [i, result] of results.entries()) {
    const p = parts[i] as Part;
    if (result.status === 'rejected') {
      failures.push({ name: p.name, reason: result.reason });
    } else {
      partFailures.succeeded(ctx, p.name);
      await result.value();
    }
  }
  if (failures.length > 0 && failures.length === parts.length) throw (failures[0] as { reason: unknown }).reason;
  for (const failure of failures) {
    const error = failure.reason;
    partFailures.failed(ctx, failure.name, failureReason(error, cutOff), error, 'its series are left out');
    ctx.leftOut?.({
      path: error instanceof ManagementError ? error.pathname : failure.name,
      cause: partFailureCause(error, ctx.signal.aborted),
      why: error instanceof ManagementError ? error.detail : error instanceof Error ? error.message : String(error),
    });
  }
  partFailures.report(ctx, collector);
}

/** The objects of a JSON list answer; anything else is an error of that request. */
export function jsonList<T extends object = Record<string, unknown>>(body: unknown, path: string): T[] {
  return expectList(body, path).filter((item): item is T => item !== null && typeof item === 'object' && !Array.isArray(item));
}

/** Major version of the management plugin, which decides which paths exist. */
export function majorVersion(ctx: CollectContext<unknown>): number {
  return parseVersion(ctx.broker.managementVersion)[0];
}
