/**
 * Runs one collector once, outside the scheduler, and hands back what it wrote: the rendered
 * text exposition and the samples parsed from it. For unit tests (fake-broker-api.ts answering
 * recorded fixtures) and broker tests (a ManagementClient against a real node) alike.
 *
 *   const r = await runCollector(connectionsCollector, { api: fakeApi, options: { per_connection: true } });
 *   r.value('rabbitmq_connections_by_state', { vhost: '/', state: 'running', ... })   // number | undefined
 *   r.text                                                                             // what /metrics would serve
 *
 * Options go through the collector's own zod schema, so defaults apply as in the exporter.
 */
import { pino, type Logger } from 'pino';
import { brokerInfoFromOverview, type BrokerInfo } from '../../src/broker/broker-info.js';
import { isAbsent } from '../../src/broker/absence.js';
import { ManagementClient, peerText } from '../../src/broker/management-client.js';
import type { AnyCollector, BrokerApi, RequestLimits } from '../../src/collectors/kit/collector.js';
import { chunkText, concatFamilies, type RenderedFamily } from '../../src/exposition/text-format.js';
import { SampleSink, type SinkProfile } from '../../src/exposition/sample-sink.js';
import type { TargetShare } from '../../src/model/shard-assignment.js';
import type { FakeCall } from './fake-broker-api.js';
import { readFixture } from './fixtures.js';
import { parseExposition, type ParsedSample } from './parse-exposition.js';

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
  /** The requests the collector made in this run, in order (whatever the api). */
  requests: FakeCall[];
  /** Families with at least one sample, in rendering order. */
  familyNames: string[];
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
  /** A naming profile other than the native one, as the scheduler passes it. */
  profile?: SinkProfile;
  /** The poll's deadline and max_age as the scheduler passes them: `{ timeoutMs, maxAgeMs }` (the deadline counts from the call). */
  limits?: { timeoutMs: number; maxAgeMs: number };
  /** The families of the last successful run of the same collector (RunResult.families), as the scheduler passes them. */
  lastServed?: readonly RenderedFamily[];
}

export const BROKER_3_10_8: BrokerInfo = {
  managementVersion: '3.10.8',
  rabbitmqVersion: '3.10.8',
  productName: 'RabbitMQ',
  productVersion: '3.10.8',
  erlangVersion: '25.2.3',
  clusterName: 'rabbit@vm',
  node: 'rabbit@vm',
  variant: 'A',
  statisticsDisabled: false,
};

/** The BrokerInfo of a recorded directory's overview.json: `brokerFrom('rabbitmq-3.10.8')`. */
export function brokerFrom(dir: string, overrides: Record<string, unknown> = {}): BrokerInfo {
  return brokerInfoFromOverview({ ...readFixture<Record<string, unknown>>(dir, 'overview.json'), ...overrides });
}

export function apiOf(client: ManagementClient, signal?: AbortSignal): BrokerApi {
  const opts = (limits?: RequestLimits) => {
    const signals = [signal, limits?.signal].filter((s): s is AbortSignal => s !== undefined);
    return { signal: signals.length > 0 ? AbortSignal.any(signals) : undefined, timeoutMs: limits?.timeoutMs, answerStatuses: limits?.answerStatuses };
  };
  return {
    get: (path, query, limits) => client.getJson(path, query, opts(limits)),
    getOptional: async (path, query, limits) => {
      try {
        return await client.getJson(path, query, opts(limits));
      } catch (error) {
        if (isAbsent(error)) return undefined;
        throw error;
      }
    },
    getText: (url, cap, limits) => peerText(client, url, cap, opts(limits)),
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
  const requests: FakeCall[] = [];
  const api = recording(run.api instanceof ManagementClient ? apiOf(run.api, run.signal) : run.api, requests);
  let broker = run.broker;
  if (!broker) {
    broker = isClient ? brokerInfoFromOverview(await api.get<Record<string, unknown>>('/api/overview')) : BROKER_3_10_8;
  }
  const logs: LogLine[] = [];
  const log: Logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) });
  const options = collector.optionsSchema ? collector.optionsSchema.parse(run.options ?? {}) : {};
  const sink = new SampleSink(run.share, run.profile);
  await collector.collect({
    share: run.share,
    api,
    broker,
    sink,
    log,
    options,
    signal: run.signal ?? new AbortController().signal,
    carryOver: run.memory ?? new Map(),
    limits: run.limits ? { ...run.limits, deadlineAt: performance.now() + run.limits.timeoutMs } : undefined,
    lastServed: run.lastServed,
  });
  const skipped = sink.skipped;
  const dropped = Object.fromEntries(sink.dropped);
  const families = sink.finish();
  const text = Buffer.concat(concatFamilies(families, false).map(chunkText)).toString('utf8');
  const { samples, parsed } = parseExposition(text);
  return {
    text,
    families,
    samples,
    parsed,
    skipped,
    dropped,
    logs,
    requests,
    familyNames: families.filter((f) => f.samples > 0).map((f) => f.header.name),
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

function recording(api: BrokerApi, requests: FakeCall[]): BrokerApi {
  const record = (path: string, query: Record<string, string | number | boolean> | undefined, optional: boolean) =>
    requests.push({ path, query: Object.fromEntries(Object.entries(query ?? {}).map(([k, v]) => [k, String(v)])), optional });
  return {
    get: (path, query, limits) => {
      record(path, query, false);
      return api.get(path, query, limits);
    },
    getOptional: (path, query, limits) => {
      record(path, query, true);
      return api.getOptional(path, query, limits);
    },
    ...(api.getText
      ? {
          getText: (url: string, cap: { bytes: number; name: string }, limits?: RequestLimits) => {
            record(url, undefined, false);
            return api.getText!(url, cap, limits);
          },
        }
      : {}),
  };
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}
