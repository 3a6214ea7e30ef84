import { exporterMetrics as M } from '../catalogue/exporter.js';
import type { RenderedFamily } from '../render/text-format.js';
import type { NamingProfileName } from '../metrics/naming-profile.js';
import { DROP_REASONS, SampleSink } from '../render/sample-sink.js';
import type { TargetState } from '../state/target-state.js';
import { REVISION, VERSION } from './version.js';
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
}

export function newHttpCounters(): HttpCounters {
  return { scrapesRefused: 0, readTimeouts: 0, writeTimeouts: 0 };
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
  now: number,
  withProcess = true,
  naming: NamingProfileName = 'native',
): RenderedFamily[] {
  const sink = ownSink(naming);
  if (target.servesUp) sink.add(M.up, [], target.up ? 1 : 0);
  if (withProcess) sink.add(M.build, [VERSION, REVISION, process.version], 1);
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
      const fresh = target.isFresh(state, now);
      sink.add(M.collectorDataWithdrawn, labels, fresh ? 0 : 1);
      sink.add(M.collectorSamples, labels, fresh ? state.samples : 0);
    }
  }
  return sink.finish();
}

/** The exporter's series that belong to no target: served on /metrics when several targets are polled. */
export function processWideFamilies(http: HttpCounters, naming: NamingProfileName = 'native'): RenderedFamily[] {
  const sink = ownSink(naming);
  sink.add(M.build, [VERSION, REVISION, process.version], 1);
  addServerSeries(sink, http);
  return sink.finish();
}

/** Under another profile, the exporter's own series that profile serves (see naming-profile.ts). */
function ownSink(naming: NamingProfileName): SampleSink {
  return naming === 'native' ? new SampleSink() : new SampleSink(undefined, { name: naming, clusterName: '', node: '' });
}

function addServerSeries(sink: SampleSink, http: HttpCounters): void {
  sink.add(M.scrapesRefused, [], http.scrapesRefused);
  sink.add(M.httpTimeouts, ['read'], http.readTimeouts);
  sink.add(M.httpTimeouts, ['write'], http.writeTimeouts);
  eventLoopDelay.start();
  sink.add(M.eventLoopDelayMax, [], eventLoopDelay.maxSeconds());
}
