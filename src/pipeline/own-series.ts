import { exporterMetrics as M, kbuddeExporterMetrics as K } from '../collectors/exporter/metrics.js';
import type { KbuddeModule } from '../profiles/kbudde/modules.js';
import type { RenderedFamily } from '../model/text-format.js';
import { renaming, type NamingProfileName } from '../profiles/profiles.js';
import { DROP_REASONS, SampleSink } from '../model/sample-sink.js';
import type { TargetState } from './target-state.js';
import { BUILD_INFO, VERSION } from './version.js';
import { eventLoopDelay } from './event-loop-delay.js';

export interface ClientCounters {
  requests: number;
  bytesRead: number;
}

/** What the HTTP server counts about its clients (see src/server/http-server.ts). */
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

export function newHttpCounters(): HttpCounters {
  return { scrapesRefused: 0, readTimeouts: 0, writeTimeouts: 0, connectionsRefused: 0, authRefusedBusy: 0, authRefusedThrottled: 0 };
}

/** What the kbudde profile's own series need of a target beyond its state. */
export interface KbuddeTargetView {
  /** The cluster's name and the node that answered /api/overview; undefined until it has answered. */
  broker(): { clusterName: string; node: string } | undefined;
  /** Each enabled collector → the kbudde modules it carries (none for a collector kbudde had no module for). */
  modules: ReadonlyMap<string, readonly KbuddeModule[]>;
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
  kbudde?: KbuddeTargetView,
): RenderedFamily[] {
  const broker = kbudde?.broker();
  const sink = ownSink(naming, broker);
  const up = naming === 'kbudde' && kbudde ? kbuddeUp(target, kbudde) : target.up;
  if (target.servesUp) sink.add(M.up, [], up ? 1 : 0);
  if (withProcess) sink.add(M.build, [VERSION, BUILD_INFO.revision, BUILD_INFO.branch, process.version], 1);
  sink.add(M.requests, [], client.requests);
  sink.add(M.responseBytes, [], client.bytesRead);
  if (withProcess) addServerSeries(sink, http);
  for (const [key, count] of target.refusedAnswers) sink.add(M.answersRefused, key.split('\u0000'), count);
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
  if (naming === 'kbudde') families.push(...kbuddeOwnFamilies(target, withProcess, kbudde, broker));
  return families;
}

/**
 * kbudde's rabbitmq_up: 1 only when the broker's self-description was read at the last poll and
 * no enabled module's collector failed its last poll (one not polled yet has not failed). kbudde
 * meant "every module of this scrape succeeded"; ours are background polls, so "last poll".
 */
function kbuddeUp(target: TargetState, kbudde: KbuddeTargetView): boolean {
  if (!target.up) return false;
  for (const [collector, modules] of kbudde.modules) {
    if (modules.length > 0 && target.collectors.get(collector)?.lastSuccess === false) return false;
  }
  return true;
}

/**
 * rabbitmq_module_up and _scrape_duration_seconds per kbudde module, from its collector's last
 * poll; the duration, as in kbudde, only once the cluster and node are known. And kbudde's
 * rabbitmq_exporter_build_info, with the process-wide series.
 */
function kbuddeOwnFamilies(target: TargetState | undefined, withProcess: boolean, kbudde: KbuddeTargetView | undefined, broker: { clusterName: string; node: string } | undefined): RenderedFamily[] {
  const sink = new SampleSink();
  if (withProcess) sink.add(K.build, { version: VERSION, revision: BUILD_INFO.revision, branch: BUILD_INFO.branch, builddate: BUILD_INFO.buildDate }, 1);
  for (const [collector, modules] of kbudde?.modules ?? []) {
    const state = target?.collectors.get(collector);
    if (!state) continue;
    for (const module of modules) {
      const labels = { cluster: broker?.clusterName ?? '', node: broker?.node ?? '', module };
      if (state.lastSuccess !== undefined) sink.add(K.moduleUp, labels, state.lastSuccess ? 1 : 0);
      if (broker && state.lastDurationSeconds !== undefined) sink.add(K.moduleDuration, labels, state.lastDurationSeconds);
    }
  }
  return sink.finish();
}

/** The exporter's series that belong to no target: served on /metrics when several targets are polled. */
export function processWideFamilies(http: HttpCounters, naming: NamingProfileName = 'native'): RenderedFamily[] {
  const sink = ownSink(naming, undefined);
  sink.add(M.build, [VERSION, BUILD_INFO.revision, BUILD_INFO.branch, process.version], 1);
  addServerSeries(sink, http);
  const families = sink.finish();
  if (naming === 'kbudde') families.push(...kbuddeOwnFamilies(undefined, true, undefined, undefined));
  return families;
}

/**
 * Under another profile, the exporter's own series that profile serves (see naming-profile.ts);
 * `broker`: the cluster and node its cluster and node labels carry (empty until known, as in kbudde).
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
