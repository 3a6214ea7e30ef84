import type { Logger } from 'pino';
import type { BrokerInfo } from '../broker/broker-info.js';
import type { BrokerReport } from '../broker/broker-info-reader.js';
import { unlessAbsent } from '../broker/absence.js';
import { type ManagementClient, peerText } from '../broker/management-client.js';
import type { AnyCollector, BrokerApi, PollLimits, RequestLimits } from '../collectors/kit/collector.js';
import type { LeftOutRequest } from '../broker/failure-cause.js';
import { type DropReason, SampleSink, type SinkProfile } from '../exposition/sample-sink.js';
import type { TargetShare } from '../model/shard-assignment.js';
import type { RenderedFamily } from '../exposition/text-format.js';
import type { MetricDef } from '../model/metric-def.js';
import type { TargetProfile } from '../profiles/profiles.js';

/** What one poll of a collector is given, wherever it runs (the main thread or the poll thread). */
export interface CollectRequest {
  readonly collector: AnyCollector;
  readonly client: ManagementClient;
  /** Aborted at the poll's deadline, by stop(), and when the poll ends. */
  readonly signal: AbortSignal;
  readonly broker: BrokerInfo;
  readonly share?: TargetShare;
  readonly profile?: SinkProfile;
  readonly log: Logger;
  readonly options: unknown;
  readonly carryOver: Map<string, unknown>;
  readonly brokerReport?: BrokerReport;
  readonly limits: PollLimits;
  readonly lastServed?: readonly RenderedFamily[];
}

/** One poll of a collector on this thread: its requests go through the target's client, bounded by the poll's signal. */
export async function collectHere(request: CollectRequest): Promise<PollResult> {
  const { collector, client, signal, share } = request;
  const lane = collector.lane;
  // A request with limits of its own (one vhost's list) ends at the first of its deadline and the poll's.
  const requestOptions = (limits?: RequestLimits) =>
    limits
      ? { signal: limits.signal ? AbortSignal.any([signal, limits.signal]) : signal, lane, timeoutMs: limits.timeoutMs, answerStatuses: limits.answerStatuses }
      : { signal, lane };
  const api: BrokerApi = {
    get: (path, query, limits) => client.getJson(path, query, requestOptions(limits)),
    getOptional: (path, query, limits) => unlessAbsent(client.getJson(path, query, requestOptions(limits))),
    getText: (url, cap, limits) => peerText(client, url, cap, requestOptions(limits)),
  };
  const leftOut: LeftOutRequest[] = [];
  const sink = new SampleSink(share && !share.whole ? share : undefined, request.profile);
  await collector.collect({
    api,
    broker: request.broker,
    sink,
    log: request.log,
    options: request.options,
    signal,
    carryOver: request.carryOver,
    share,
    brokerReport: request.brokerReport,
    limits: request.limits,
    lastServed: request.lastServed,
    leftOut: (left) => leftOut.push(left),
  });
  return { families: sink.finish(), skipped: sink.skipped, dropped: sink.dropped, leftOut };
}

/** What a successful poll hands the target's state. */
export interface PollResult {
  readonly families: RenderedFamily[];
  /** Values that were null or not numbers. */
  readonly skipped: number;
  readonly dropped: ReadonlyMap<DropReason, number>;
  readonly leftOut: readonly LeftOutRequest[];
}

/** The profile a poll's samples are written under (undefined: the native names). `excluded`: when known, the profile's excluded families of the collector. */
export function sinkProfileOf(profile: TargetProfile | undefined, collector: AnyCollector, broker: BrokerInfo, excluded?: ReadonlySet<MetricDef>): SinkProfile | undefined {
  if (!profile) return undefined;
  return { names: profile.names, clusterName: broker.clusterName, node: broker.node, loadBalanced: profile.loadBalanced, excluded: excluded ?? profile.excluded(collector.metrics) };
}
