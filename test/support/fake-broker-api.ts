/**
 * Fake BrokerApis for unit tests. `fakeApi(routes)` answers from a table keyed by path;
 * `brokerApiAnswering(answer)` wraps any answering function (fixture-broker.ts builds on it).
 * Both record every request and turn a 404 into `undefined` for getOptional, as the client does.
 */
import { isAbsent } from '../../src/broker/absence.js';
import { ManagementError } from '../../src/broker/errors.js';
import type { BrokerApi, RequestLimits } from '../../src/collectors/kit/collector.js';

type Query = Record<string, string | number | boolean> | undefined;

/** Answer of a fake route: the path is absent (HTTP 404), as when a plugin is not enabled. */
export const NOT_FOUND = Symbol('404');

/**
 * Answer of a fake route: no answer comes. The request ends as the client ends it: a timeout at
 * the request's own deadline (RequestLimits.timeoutMs), cancelled when its signal aborts; never
 * without either.
 */
export const STALL = Symbol('stall');

function stalled(path: string, limits: RequestLimits | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    const timer = limits?.timeoutMs === undefined ? undefined : setTimeout(() => reject(new ManagementError('timeout', path, `no complete answer within ${limits.timeoutMs} ms`)), limits.timeoutMs);
    limits?.signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new ManagementError('aborted', path, 'cancelled: the poll ran past its deadline or the exporter is stopping'));
    }, { once: true });
  });
}

export type FakeRoute = unknown | ((query: Record<string, string>) => unknown);

export interface FakeCall {
  path: string;
  /** The query as strings, as it goes on the wire. */
  query: Record<string, string>;
  /** Asked with getOptional (a 404 means "absent") rather than get. */
  optional: boolean;
}

export interface FakeApi extends BrokerApi {
  /** Every request, in order. */
  readonly calls: FakeCall[];
}

export function notFound(path: string): ManagementError {
  return new ManagementError('http_status', path, 'HTTP 404 (Object Not Found: Not Found)', 404);
}

/** A BrokerApi whose answers come from `answer` (it may throw a ManagementError); answers are copied. */
export function brokerApiAnswering(answer: (path: string, query: Record<string, string>) => unknown): FakeApi {
  const calls: FakeCall[] = [];
  const ask = async (path: string, query: Query, optional: boolean, limits: RequestLimits | undefined): Promise<unknown> => {
    const q: Record<string, string> = {};
    for (const [k, v] of Object.entries(query ?? {})) q[k] = String(v);
    calls.push({ path, query: q, optional });
    const value = answer(path, q);
    if (value === STALL) return stalled(path, limits);
    // A copy, so a collector can never alter the shared fixture.
    return value === undefined ? undefined : structuredClone(value);
  };
  return {
    calls,
    get: async <T>(path: string, query?: Query, limits?: RequestLimits) => (await ask(path, query, false, limits)) as T,
    getOptional: async <T>(path: string, query?: Query, limits?: RequestLimits) => {
      try {
        return (await ask(path, query, true, limits)) as T;
      } catch (error) {
        if (isAbsent(error)) return undefined;
        throw error;
      }
    },
    // An absolute URL (a node's rabbitmq_prometheus) is a route like any other: its answer is text.
    getText: async (url: string, _cap: { bytes: number; name: string }, limits?: RequestLimits) => (await ask(url, undefined, false, limits)) as string,
  };
}

/**
 * A BrokerApi answering from a table keyed by path (no query). A route may be a value, NOT_FOUND,
 * or a function of the query (it may throw a ManagementError). A path not in the table fails the
 * test with a plain Error, so unexpected requests are never silently treated as absent.
 */
export function fakeApi(routes: Record<string, FakeRoute>): FakeApi {
  return brokerApiAnswering((path, query) => {
    if (!Object.hasOwn(routes, path)) throw new Error(`fakeApi: unexpected request GET ${path}`);
    const route = routes[path];
    const value = typeof route === 'function' ? (route as (query: Record<string, string>) => unknown)(query) : route;
    if (value === NOT_FOUND) throw notFound(path);
    return value;
  });
}
