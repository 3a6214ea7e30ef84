/**
 * Runs one collector once, outside the scheduler, and hands back what it wrote: the rendered
 * text exposition and the samples parsed from it. For unit tests (a fake BrokerApi answering
 * recorded fixtures) and broker tests (a ManagementClient against a real node) alike.
 *
 *   const r = await runCollector(connectionsCollector, { api: fakeApi, options: { per_connection: true } });
 *   r.value('rabbitmq_connections_by_state', { vhost: '/', state: 'running', ... })   // number | undefined
 *   r.text                                                                             // what /metrics would serve
 *
 * Options go through the collector's own zod schema, so defaults apply as in the exporter.
 */
import { readFileSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import { brokerInfoFromOverview, type BrokerInfo } from '../../src/broker/broker-info.js';
import { isAbsent } from '../../src/client/absence.js';
import { ManagementError } from '../../src/client/errors.js';
import { ManagementClient } from '../../src/client/management-client.js';
import type { AnyCollector, BrokerApi } from '../../src/collectors/collector.js';
import { concatFamilies, type RenderedFamily } from '../../src/render/text-format.js';
import { SampleSink } from '../../src/render/sample-sink.js';
import type { TargetShare } from '../../src/shard/shard-assignment.js';

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface RunResult {
  /** The families in the Prometheus text format (0.0.4), HELP/TYPE headers included. */
  text: string;
  families: RenderedFamily[];
  /** Sample lines keyed exactly as rendered: `name{a="x",b="y"}` (labels in the family's order). */
  samples: Map<string, number>;
  parsed: ParsedSample[];
  /** Values the collector passed that were null, absent or not numbers. */
  skipped: number;
  /** What the collector left out of the answers, by reason (every reason, 0 when nothing). */
  dropped: Record<string, number>;
  /** What the collector logged (pino JSON lines, level debug and up). */
  logs: LogLine[];
  /** The value of the one sample of `name` whose labels are exactly `labels`, or undefined. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Every sample of a family. */
  family(name: string): ParsedSample[];
}

export interface RunOptions {
  /** A fake or real BrokerApi, or a ManagementClient (wrapped like the scheduler does). */
  api: BrokerApi | ManagementClient;
  /** Raw collector options (as under `collectors.<name>` in the config), defaults applied. */
  options?: Record<string, unknown>;
  /** Defaults to 3.10.8 with statistics on; with a ManagementClient, read from /api/overview. */
  broker?: BrokerInfo;
  /** Pass the same Map to several runs to model successive polls of one target. */
  memory?: Map<string, unknown>;
  signal?: AbortSignal;
  /** A shard's part of the target, as the scheduler passes it (the sink keeps only its series). */
  share?: TargetShare;
}

export const BROKER_3_10_8: BrokerInfo = {
  managementVersion: '3.10.8',
  rabbitmqVersion: '3.10.8',
  productName: 'RabbitMQ',
  productVersion: '3.10.8',
  erlangVersion: '25.2.3',
  clusterName: 'rabbit@vm',
  variant: 'A',
  statisticsDisabled: false,
};

export function apiOf(client: ManagementClient, signal?: AbortSignal): BrokerApi {
  const opts = signal ? { signal } : {};
  return {
    get: (path, query) => client.getJson(path, query, opts),
    getOptional: async (path, query) => {
      try {
        return await client.getJson(path, query, opts);
      } catch (error) {
        if (isAbsent(error)) return undefined;
        throw error;
      }
    },
  };
}

/** A client for a broker test: `clientFor(broker)` with the harness's handle. Close it afterwards. */
export function clientFor(broker: { managementUrl: string; username: string; password: string }): ManagementClient {
  return new ManagementClient({
    url: broker.managementUrl,
    username: broker.username,
    password: broker.password,
    timeouts: { connectMs: 5000, headersMs: 30_000, bodyMs: 30_000, totalMs: 60_000 },
    maxResponseBytes: 256 * 1024 * 1024,
    maxConcurrentRequests: 2,
  });
}

export async function runCollector(collector: AnyCollector, run: RunOptions): Promise<RunResult> {
  const isClient = run.api instanceof ManagementClient;
  const api = run.api instanceof ManagementClient ? apiOf(run.api, run.signal) : run.api;
  let broker = run.broker;
  if (!broker) {
    broker = isClient ? brokerInfoFromOverview(await api.get<Record<string, unknown>>('/api/overview')) : BROKER_3_10_8;
  }
  const logs: LogLine[] = [];
  const log: Logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) });
  const options = collector.optionsSchema ? collector.optionsSchema.parse(run.options ?? {}) : {};
  const sink = new SampleSink(run.share);
  await collector.collect({
    share: run.share,
    api,
    broker,
    sink,
    log,
    options,
    signal: run.signal ?? new AbortController().signal,
    carryOver: run.memory ?? new Map(),
    updateBroker: () => undefined,
  });
  const skipped = sink.skipped;
  const dropped = Object.fromEntries(sink.dropped);
  const families = sink.finish();
  const text = Buffer.concat(concatFamilies(families, false)).toString('utf8');
  const { samples, parsed } = parseExposition(text);
  return {
    text,
    families,
    samples,
    parsed,
    skipped,
    dropped,
    logs,
    value(name, labels = {}) {
      const hits = parsed.filter((s) => s.name === name && sameLabels(s.labels, labels));
      if (hits.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} has ${hits.length} samples`);
      return hits[0]?.value;
    },
    family(name) {
      return parsed.filter((s) => s.name === name);
    },
  };
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

/** Parses sample lines of the text format (comments skipped); label values are unescaped. */
export function parseExposition(text: string): { samples: Map<string, number>; parsed: ParsedSample[] } {
  const samples = new Map<string, number>();
  const parsed: ParsedSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    const key = line.slice(0, space);
    const raw = line.slice(space + 1);
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    if (samples.has(key)) throw new Error(`duplicate sample ${key}`);
    samples.set(key, value);
    const brace = key.indexOf('{');
    const name = brace < 0 ? key : key.slice(0, brace);
    parsed.push({ name, labels: brace < 0 ? {} : parseLabels(key.slice(brace + 1, -1)), value });
  }
  return { samples, parsed };
}

function parseLabels(body: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < body.length) {
    const eq = body.indexOf('="', i);
    const name = body.slice(i, eq);
    let j = eq + 2;
    let value = '';
    while (body[j] !== '"') {
      if (body[j] === '\\') {
        const next = body[j + 1];
        value += next === 'n' ? '\n' : next;
        j += 2;
      } else {
        value += body[j];
        j++;
      }
    }
    labels[name] = value;
    i = j + 2; // past the closing quote and the comma
  }
  return labels;
}

/** A recorded answer under test/fixtures, parsed: `loadFixture('rabbitmq-3.10.8/connections-page1.json')`. */
export function loadFixture<T = unknown>(relative: string): T {
  return JSON.parse(readFileSync(new URL(`../fixtures/${relative}`, import.meta.url), 'utf8')) as T;
}

/** Answer of a fake route: the path is absent (HTTP 404), as when a plugin is not enabled. */
export const NOT_FOUND = Symbol('404');

export type FakeRoute = unknown | ((query: Record<string, string>) => unknown);

export interface FakeApi extends BrokerApi {
  /** Every request, in order, with its query as strings. */
  readonly calls: { path: string; query: Record<string, string> }[];
}

/**
 * A BrokerApi answering from a table keyed by path (no query). A route may be a value, NOT_FOUND,
 * or a function of the query (it may throw a ManagementError). A path not in the table fails the
 * test with a plain Error, so unexpected requests are never silently treated as absent.
 */
export function fakeApi(routes: Record<string, FakeRoute>): FakeApi {
  const calls: { path: string; query: Record<string, string> }[] = [];
  const answer = (path: string, query?: Record<string, string | number | boolean>): unknown => {
    const q: Record<string, string> = {};
    for (const [k, v] of Object.entries(query ?? {})) q[k] = String(v);
    calls.push({ path, query: q });
    if (!Object.hasOwn(routes, path)) throw new Error(`fakeApi: unexpected request GET ${path}`);
    const route = routes[path];
    const value = typeof route === 'function' ? (route as (query: Record<string, string>) => unknown)(q) : route;
    if (value === NOT_FOUND) throw new ManagementError('http_status', path, 'HTTP 404 (Object Not Found: Not Found)', 404);
    // A copy, so a collector can never alter the shared fixture.
    return value === undefined ? undefined : structuredClone(value);
  };
  return {
    calls,
    get: async <T>(path: string, query?: Record<string, string | number | boolean>) => answer(path, query) as T,
    getOptional: async <T>(path: string, query?: Record<string, string | number | boolean>) => {
      try {
        return answer(path, query) as T;
      } catch (error) {
        if (isAbsent(error)) return undefined;
        throw error;
      }
    },
  };
}
