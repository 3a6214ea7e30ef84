import { parseVersion } from '../broker/broker-info.js';
import { ManagementError } from '../client/errors.js';
import type { CollectContext } from './collector.js';

/**
 * Polls made of independent requests to paths that may be absent (plugin off, older version)
 * or refused to the exporter's user: shared by the health_checks, limits, federation, shovels,
 * feature_flags and inventory collectors.
 */

/** A path that answered 404 (or was refused, where that means "not for this user") is asked again every this many polls. */
export const REPROBE_EVERY = 10;

/** `asked` is false when the path is remembered as absent and was not asked this poll. */
export type Fetched<T> = { ok: true; body: T } | { ok: false; asked: boolean };

export interface OptionalEndpoint {
  path: string;
  query?: Record<string, string | number | boolean>;
  /**
   * Set when a 401/403 means the exporter's user lacks a tag or permission this endpoint needs
   * (not bad credentials): such an answer is then treated like a 404, and this says why.
   */
  refusedBecause?: string;
  /** What a 404 means, for the log line (e.g. "the shovel management plugin is not enabled"). */
  absentMeans: string;
}

interface AbsentState {
  /** Polls since the path was last asked. */
  skipped: number;
  status: number;
}

export function httpStatus(error: unknown): number | undefined {
  return error instanceof ManagementError && error.kind === 'http_status' ? error.status : undefined;
}

/**
 * GETs a path that may not exist on this broker (plugin off, older version) or may need more
 * than the exporter's user has. Such an answer gives `{ ok: false }`, is remembered in
 * ctx.memory and logged once; the path is then asked only every REPROBE_EVERY-th poll.
 * Every other failure throws, as ctx.api.get does.
 */
export async function getRemembered<T>(ctx: CollectContext<unknown>, endpoint: OptionalEndpoint): Promise<Fetched<T>> {
  const key = `absent ${endpoint.path}`;
  const state = ctx.memory.get(key) as AbsentState | undefined;
  if (state && state.skipped < REPROBE_EVERY - 1) {
    state.skipped++;
    return { ok: false, asked: false };
  }
  let body: T;
  try {
    body = await ctx.api.get<T>(endpoint.path, endpoint.query);
  } catch (error) {
    const status = httpStatus(error);
    const refused = status === 401 || status === 403;
    if (status === 404 || (refused && endpoint.refusedBecause)) {
      if (!state || state.status !== status) {
        if (refused) {
          ctx.log.warn(
            { path: endpoint.path, status, cause: (error as Error).message },
            `the exporter's user may not read this path (${endpoint.refusedBecause}): its series are left out; asking again every ${REPROBE_EVERY} polls`,
          );
        } else {
          ctx.log.info({ path: endpoint.path, status }, `${endpoint.absentMeans}: no series; asking again every ${REPROBE_EVERY} polls`);
        }
      }
      ctx.memory.set(key, { skipped: 0, status } satisfies AbsentState);
      return { ok: false, asked: true };
    }
    throw error;
  }
  if (state) {
    ctx.memory.delete(key);
    ctx.log.info({ path: endpoint.path }, 'the path answers again');
  }
  return { ok: true, body };
}

/** getRemembered() for a part: the body, undefined when the broker said absent, NOT_ASKED while that is remembered. */
export async function optionalBody<T>(ctx: CollectContext<unknown>, endpoint: OptionalEndpoint): Promise<T | undefined | typeof NOT_ASKED> {
  const answer = await getRemembered<T>(ctx, endpoint);
  if (answer.ok) return answer.body;
  return answer.asked ? undefined : NOT_ASKED;
}

/** What a part's fetch returns when it sent no request (its path is remembered as absent). */
export const NOT_ASKED: unique symbol = Symbol('not asked');

/** One independent request of a poll and how its answer becomes samples. */
export interface Part {
  readonly name: string;
  fetch(): Promise<{ asked: boolean; emit?: () => void }>;
}

/** A part whose answer is written by `emit`; typed here, erased in the list. */
export function part<T>(name: string, fetch: () => Promise<T | typeof NOT_ASKED>, emit: (result: T) => void): Part {
  return {
    name,
    fetch: async () => {
      const result = await fetch();
      return result === NOT_ASKED ? { asked: false } : { asked: true, emit: () => emit(result) };
    },
  };
}

/**
 * Runs the parts' requests at once (the client bounds concurrency), then writes their samples
 * in the parts' order, so the exposition's order does not depend on which answer came first.
 * A part that fails is left out with a warning; only when every request sent fails does the
 * poll fail (with the first error).
 */
export async function collectParts(ctx: CollectContext<unknown>, parts: readonly Part[]): Promise<void> {
  const results = await Promise.allSettled(parts.map((p) => p.fetch()));
  const failures: { name: string; reason: unknown }[] = [];
  let answered = 0;
  results.forEach((result, i) => {
    const p = parts[i] as Part;
    if (result.status === 'rejected') {
      failures.push({ name: p.name, reason: result.reason });
    } else if (result.value.asked) {
      answered++;
      result.value.emit?.();
    }
  });
  if (failures.length > 0 && answered === 0) throw (failures[0] as { reason: unknown }).reason;
  for (const failure of failures) {
    const error = failure.reason;
    ctx.log.warn(
      {
        part: failure.name,
        path: error instanceof ManagementError ? error.path : undefined,
        reason: error instanceof ManagementError ? error.reason : 'collector_error',
        cause: error instanceof Error ? error.message : String(error),
      },
      'one request of the poll failed: its series are left out of this poll',
    );
  }
}

/** The objects of a JSON list answer; anything else is an error of that request. */
export function jsonList<T extends object = Record<string, unknown>>(body: unknown, path: string): T[] {
  if (!Array.isArray(body)) throw new Error(`${path} did not answer a JSON list`);
  return body.filter((item): item is T => item !== null && typeof item === 'object' && !Array.isArray(item));
}

/** Major version of the management plugin, which decides which paths exist. */
export function majorVersion(ctx: CollectContext<unknown>): number {
  return parseVersion(ctx.broker.managementVersion)[0];
}
