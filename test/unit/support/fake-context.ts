// A CollectContext whose api serves recorded answers, for collector tests.
import pino from 'pino';
import { brokerInfoFromOverview, type BrokerInfo } from '../../../src/broker/broker-info.js';
import { ManagementError } from '../../../src/client/errors.js';
import type { AnyCollector, BrokerApi, CollectContext } from '../../../src/collectors/collector.js';
import type { RenderedFamily } from '../../../src/render/text-format.js';
import { SampleSink } from '../../../src/render/sample-sink.js';
import { Exposition } from '../../../src/snapshot/exposition.js';
import { readFixture } from './exposition.js';

export interface RecordedRequest {
  path: string;
  query: Record<string, string | number | boolean> | undefined;
  optional: boolean;
}

/** Answers by path (query ignored for matching, but recorded); a missing path is a 404. */
export type Routes = Record<string, unknown | (() => unknown)>;

export function fakeApi(routes: Routes, requests: RecordedRequest[]): BrokerApi {
  const answer = (path: string): unknown => {
    if (!(path in routes)) throw new ManagementError('http_status', path, 'HTTP 404 (Object Not Found: Not Found)', 404);
    const route = routes[path];
    const value = typeof route === 'function' ? (route as () => unknown)() : route;
    return structuredClone(value);
  };
  return {
    async get<T>(path: string, query?: Record<string, string | number | boolean>): Promise<T> {
      requests.push({ path, query, optional: false });
      return answer(path) as T;
    },
    async getOptional<T>(path: string, query?: Record<string, string | number | boolean>): Promise<T | undefined> {
      requests.push({ path, query, optional: true });
      try {
        return answer(path) as T;
      } catch (error) {
        if (error instanceof ManagementError && error.status === 404) return undefined;
        throw error;
      }
    },
  };
}

export function brokerFrom(dir: string, overrides: Record<string, unknown> = {}): BrokerInfo {
  return brokerInfoFromOverview({ ...readFixture<Record<string, unknown>>(dir, 'overview.json'), ...overrides });
}

export interface CollectResult {
  text: string;
  families: RenderedFamily[];
  requests: RecordedRequest[];
  skipped: number;
  /** What the collector left out, by reason (every reason, 0 when nothing). */
  dropped: Record<string, number>;
  familyNames: string[];
  updatedWith: Record<string, unknown>[];
}

/** Runs one collect against the routes and renders what it wrote. */
export async function runCollector(
  collector: AnyCollector,
  routes: Routes,
  broker: BrokerInfo,
  options: Record<string, unknown> = {},
  /** Pass the same Map to model successive polls of one target. */
  memory: Map<string, unknown> = new Map(),
): Promise<CollectResult> {
  const requests: RecordedRequest[] = [];
  const updatedWith: Record<string, unknown>[] = [];
  const sink = new SampleSink();
  const parsedOptions = collector.optionsSchema ? (collector.optionsSchema.parse(options) as Record<string, unknown>) : options;
  const ctx: CollectContext<Record<string, unknown>> = {
    api: fakeApi(routes, requests),
    broker,
    sink,
    log: pino({ level: 'silent' }),
    options: parsedOptions,
    signal: new AbortController().signal,
    carryOver: memory,
    updateBroker: (overview) => updatedWith.push(overview),
  };
  await collector.collect(ctx);
  const skipped = sink.skipped;
  const dropped = Object.fromEntries(sink.dropped);
  const families = sink.finish();
  const text = Exposition.of(families).body('text').toString('utf8');
  return { text, families, requests, skipped, dropped, familyNames: families.filter((f) => f.samples > 0).map((f) => f.header.name), updatedWith };
}
