import { exporterMetrics as M } from '../collectors/exporter/metrics.js';
import type { ProfileTargetView } from '../exposition/naming-profile.js';
import type { RenderedFamily } from '../exposition/text-format.js';
import { renaming, type NamingProfileName } from '../profiles/profiles.js';
import { DROP_REASONS, SampleSink } from '../exposition/sample-sink.js';
import { targetVerdict, VERDICT_RANK, type VerdictLevel } from './target-status.js';
import type { TargetState } from './target-state.js';
import { BUILD_INFO, VERSION } from './version.js';
import { eventLoopDelay } from './event-loop-delay.js';

export interface ClientCounters {
  requests: number;
  bytesRead: number;
}

/** What the HTTP server counts about its clients (see src/server/web-server.ts). */
export interface HttpCounters {
  scrapesRefused: number;
  readTimeouts: number;
  writeTimeouts: number;
  /** Connections closed at accept because web.max_connections were open. */
  connectionsRefused: number;
  /** Requests answered 429 without a password check: too many checks in flight… */
  authRefusedBusy: number;
  /** …or the client failed too often lately. */
  authRefusedThrottled: number;
}

/** The build, as a naming profile's own series describe it. */
const BUILD_INFO_VIEW = { version: VERSION, revision: BUILD_INFO.revision, branch: BUILD_INFO.branch, buildDate: BUILD_INFO.buildDate };

export function newHttpCounters(): HttpCounters {
  return { scrapesRefused: 0, readTimeouts: 0, writeTimeouts: 0, connectionsRefused: 0, authRefusedBusy: 0, authRefusedThrottled: 0 };
}

/**
 * The exporter's own series for one target, rendered from the target's state. `withProcess`: with
 * the process-wide ones too (build, HTTP server, event loop), as when it is the only target; with
 * several, those are served once, on /metrics (see processWideFamilies).
 */
export function exporterFamilies(
  target: TargetState,
  client: ClientCounters,
  http: HttpCounters,
  /** performance.now(): what data are fresh is measured on the monotonic clock. */
  monotonicNow: number,
  withProcess = true,
  naming: NamingProfileName = 'native',
  /** What the naming profile's own series read of the target besides its state. */
  view?: ProfileTargetView,
): RenderedFamily[] {
  const broker = view?.broker();
  const profile = renaming(naming);
  const sink = ownSink(naming, broker);
  const own = view ? profile?.ownSeries : undefined;
  const up = own && view ? own.up(target, view) : target.up;
  if (target.servesUp) sink.add(M.up, [], up ? 1 : 0);
  if (withProcess) sink.add(M.build, [VERSION, BUILD_INFO.revision, BUILD_INFO.branch, process.version], 1);
  sink.add(M.requests, [], client.requests);
  sink.add(M.responseBytes, [], client.bytesRead);
  if (withProcess) addServerSeries(sink, http);
  for (const [key, count] of target.refusedAnswers) sink.add(M.answersRefused, key.split('\u0000'), count);
  const verdict = targetVerdict(target).level;
  for (const level of Object.keys(VERDICT_RANK) as VerdictLevel[]) sink.add(M.targetVerdict, [level], level === verdict ? 1 : 0);
  for (const state of target.collectors.values()) {
    const labels = [state.name];
    sink.add(M.collectorEnabled, labels, 1);
    if (state.lastSuccess !== undefined) sink.add(M.collectorSuccess, labels, state.lastSuccess ? 1 : 0);
    if (state.lastDurationSeconds !== undefined) sink.add(M.collectorDuration, labels, state.lastDurationSeconds);
    if (state.lastSuccessAt !== undefined) {
      sink.add(M.collectorLastSuccess, labels, state.lastSuccessAt / 1000);
      sink.add(M.collectorSkipped, labels, state.skipped);
      for (const reason of DROP_REASONS) sink.add(M.collectorDropped, [state.name, reason], state.dropped.get(reason) ?? 0);
      const fresh = target.isFresh(state, monotonicNow);
      sink.add(M.collectorDataWithdrawn, labels, fresh ? 0 : 1);
      sink.add(M.collectorSamples, labels, fresh ? state.samples : 0);
    }
  }
  const families = sink.finish();
  if (profile?.ownSeries) families.push(...profile.ownSeries.families(view ? { polls: target, view } : undefined, withProcess, BUILD_INFO_VIEW));
  return families;
}

/** The exporter's series that belong to no target: served on /metrics when several targets are polled. */
export function processWideFamilies(http: HttpCounters, naming: NamingProfileName = 'native'): RenderedFamily[] {
  const sink = ownSink(naming, undefined);
  sink.add(M.build, [VERSION, BUILD_INFO.revision, BUILD_INFO.branch, process.version], 1);
  addServerSeries(sink, http);
  const families = sink.finish();
  const own = renaming(naming)?.ownSeries;
  if (own) families.push(...own.families(undefined, true, BUILD_INFO_VIEW));
  return families;
}

/**
 * Under another profile, the exporter's own series that profile serves (see naming-profile.ts);
 * `broker`: the cluster and node its cluster and node labels carry (empty until known).
 */
function ownSink(naming: NamingProfileName, broker: { clusterName: string; node: string } | undefined): SampleSink {
  const names = renaming(naming);
  return names ? new SampleSink(undefined, { names, clusterName: broker?.clusterName ?? '', node: broker?.node ?? '' }) : new SampleSink();
}

function addServerSeries(sink: SampleSink, http: HttpCounters): void {
  sink.add(M.scrapesRefused, [], http.scrapesRefused);
  sink.add(M.httpTimeouts, ['read'], http.readTimeouts);
  sink.add(M.httpTimeouts, ['write'], http.writeTimeouts);
  sink.add(M.connectionsRefused, [], http.connectionsRefused);
  sink.add(M.authRefused, ['checks_in_flight'], http.authRefusedBusy);
  sink.add(M.authRefused, ['client_failures'], http.authRefusedThrottled);
  eventLoopDelay.start();
  sink.add(M.eventLoopDelayMax, [], eventLoopDelay.maxSeconds());
}
