import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { familyBody } from '../../../src/exposition/text-format.js';
import { nodesCollector } from '../../../src/collectors/nodes/collector.js';
import { overviewCollector } from '../../../src/collectors/overview/collector.js';
import { exporterFamilies, newHttpCounters } from '../../../src/pipeline/own-series.js';
import { ProcessMetrics } from '../../../src/pipeline/process-metrics.js';
import { SnapshotStore } from '../../../src/pipeline/snapshot-store.js';
import { TargetState } from '../../../src/pipeline/target-state.js';
import { BUILD_INFO, REVISION, VERSION } from '../../../src/pipeline/version.js';
import { Exposition } from '../../../src/exposition/exposition.js';
import { readFixture, REPO_ROOT } from '../../support/fixtures.js';
import { samples, seriesNames } from '../../support/parse-exposition.js';
import { fakeApi, NOT_FOUND } from '../../support/fake-broker-api.js';
import { brokerFrom, runCollector } from '../../support/run-collector.js';
import { promtoolCheckMetrics, skipWithoutPromtool } from '../../support/required-tools.js';

describe('exporterFamilies', () => {
  it('renders the exporter series from the target state', () => {
    const state = new TargetState('default', 'http://x');
    state.register('overview', 1000, 3000, { decidesUp: true });
    state.register('nodes', 1000, 3000);
    state.succeeded('overview', [], 0.5, 4, 10_000);
    state.failed('nodes', 'down', 0.25, 10_000);
    const text = Exposition.of(exporterFamilies(state, { requests: 11, bytesRead: 2048 }, { scrapesRefused: 3, readTimeouts: 1, writeTimeouts: 2, connectionsRefused: 5, authRefusedBusy: 6, authRefusedThrottled: 7 }, 12_000)).body('text').toString();
    const s = samples(text);
    expect(s.get('rabbitmq_up')).toBe(1);
    expect(s.get(`rabbitmq_exporter_build_info{version="${VERSION}",revision="${REVISION}",branch="${BUILD_INFO.branch}",nodejs_version="${process.version}"}`)).toBe(1);
    expect(s.get('rabbitmq_exporter_management_requests_total')).toBe(11);
    expect(s.get('rabbitmq_exporter_management_response_bytes_total')).toBe(2048);
    expect(s.get('rabbitmq_exporter_scrapes_refused_total')).toBe(3);
    expect(s.get('rabbitmq_exporter_http_timeouts_total{timeout="read"}')).toBe(1);
    expect(s.get('rabbitmq_exporter_http_timeouts_total{timeout="write"}')).toBe(2);
    expect(s.get('rabbitmq_exporter_http_connections_refused_total')).toBe(5);
    expect(s.get('rabbitmq_exporter_http_auth_refused_total{reason="checks_in_flight"}')).toBe(6);
    expect(s.get('rabbitmq_exporter_http_auth_refused_total{reason="client_failures"}')).toBe(7);
    expect(s.get('rabbitmq_exporter_collector_success{collector="overview"}')).toBe(1);
    expect(s.get('rabbitmq_exporter_collector_success{collector="nodes"}')).toBe(0);
    expect(s.get('rabbitmq_exporter_collector_duration_seconds{collector="nodes"}')).toBe(0.25);
    expect(s.get('rabbitmq_exporter_collector_last_success_timestamp_seconds{collector="overview"}')).toBe(10);
    expect(s.get('rabbitmq_exporter_collector_skipped_values{collector="overview"}')).toBe(4);
    // Never succeeded: no last-success, staleness or sample series, rather than zeros.
    expect(s.has('rabbitmq_exporter_collector_last_success_timestamp_seconds{collector="nodes"}')).toBe(false);
    expect(s.has('rabbitmq_exporter_collector_data_withdrawn{collector="nodes"}')).toBe(false);
    expect(s.get('rabbitmq_exporter_collector_enabled{collector="nodes"}')).toBe(1);
  });

  it('serves the target\'s verdict, the landing page\'s, as one series per verdict: 1 for the one in force', () => {
    const verdicts = (state: TargetState) => {
      const s = samples(Exposition.of(exporterFamilies(state, { requests: 0, bytesRead: 0 }, newHttpCounters(), 12_000)).body('text').toString());
      return Object.fromEntries(['healthy', 'degraded', 'starting', 'down'].map((v) => [v, s.get(`rabbitmq_exporter_target_verdict{verdict="${v}"}`)]));
    };
    const state = new TargetState('default', 'http://x');
    state.register('overview', 1000, 3000, { decidesUp: true });
    state.register('nodes', 1000, 3000);
    expect(verdicts(state)).toEqual({ healthy: 0, degraded: 0, starting: 1, down: 0 });
    state.succeeded('overview', [], 0.5, 0, 10_000);
    state.succeeded('nodes', [], 0.5, 0, 10_000);
    expect(verdicts(state)).toEqual({ healthy: 1, degraded: 0, starting: 0, down: 0 });
    state.failed('nodes', 'HTTP 500', 0.25, 11_000);
    expect(verdicts(state)).toEqual({ healthy: 0, degraded: 1, starting: 0, down: 0 });
    state.failed('overview', 'ECONNREFUSED', 0.25, 12_000);
    expect(verdicts(state)).toEqual({ healthy: 0, degraded: 0, starting: 0, down: 1 });
  });

  it('serves what the last successful poll dropped, every reason (0 when nothing), for collectors that succeeded', () => {
    const state = new TargetState('default', 'http://x');
    state.register('overview', 1000, 3000, { decidesUp: true });
    state.register('queues', 1000, 3000);
    state.register('nodes', 1000, 3000);
    state.succeeded('overview', [], 0.5, 0, 10_000);
    state.succeeded('queues', [], 0.5, 0, 10_000, new Map([['no_name', 2], ['duplicate', 5]]));
    state.failed('nodes', 'down', 0.25, 10_000);
    const text = Exposition.of(exporterFamilies(state, { requests: 0, bytesRead: 0 }, newHttpCounters(), 11_000)).body('text').toString();
    const s = samples(text);
    expect(s.get('rabbitmq_exporter_collector_dropped_objects{collector="queues",reason="no_name"}')).toBe(2);
    expect(s.get('rabbitmq_exporter_collector_dropped_objects{collector="queues",reason="duplicate"}')).toBe(5);
    expect(s.get('rabbitmq_exporter_collector_dropped_objects{collector="overview",reason="no_name"}')).toBe(0);
    expect(s.get('rabbitmq_exporter_collector_dropped_objects{collector="overview",reason="duplicate"}')).toBe(0);
    expect([...s.keys()].some((k) => k.startsWith('rabbitmq_exporter_collector_dropped_objects{collector="nodes"'))).toBe(false);
  });

  it('the version is the package version', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});

describe('ProcessMetrics', () => {
  it('prom-client default metrics under the standard process_ and nodejs_ names, no gauge ending in _total', async () => {
    const families = await new ProcessMetrics().families();
    expect(families.length).toBeGreaterThan(5);
    for (const f of families) {
      expect(f.header.name, f.header.name).toMatch(/^(process|nodejs)_/);
      if (f.header.type !== 'counter') expect(f.header.name.endsWith('_total'), f.header.name).toBe(false);
    }
    const text = Buffer.concat(families.map(familyBody)).toString();
    expect(seriesNames(text).has('process_resident_memory_bytes')).toBe(true);
  });
});

describe('a whole snapshot from the 3.10.8 fixtures', () => {
  async function snapshot(): Promise<Exposition> {
    const state = new TargetState('default', 'http://localhost:15672');
    state.register('overview', 15_000, 45_000, { decidesUp: true });
    state.register('nodes', 15_000, 45_000);
    const broker = brokerFrom('rabbitmq-3.10.8');
    const overview = await runCollector(overviewCollector, { api: fakeApi({ '/api/overview': readFixture('rabbitmq-3.10.8', 'overview.json') }), broker });
    const nodes = await runCollector(nodesCollector, {
      api: fakeApi({
        '/api/nodes': readFixture('rabbitmq-3.10.8-cluster', 'nodes.json'),
        '/api/nodes/rabbit%40vm': readFixture('rabbitmq-3.10.8', 'node-memory.json'),
        '/api/nodes/rabbit2%40vm': readFixture('rabbitmq-3.10.8', 'node-memory.json'),
        '/api/nodes/rabbit%40vm/memory': NOT_FOUND,
        '/api/nodes/rabbit2%40vm/memory': NOT_FOUND,
      }),
      broker,
    });
    state.succeeded('overview', overview.families, 0.01, 0);
    state.succeeded('nodes', nodes.families, 0.02, 0);
    return new SnapshotStore(state, { requests: 4, bytesRead: 1000 }, newHttpCounters(), new ProcessMetrics()).current();
  }

  it('has no duplicated series and carries collector and process families', async () => {
    const text = (await snapshot()).body('text').toString('utf8');
    const s = samples(text); // throws on a duplicated series
    expect(s.get('rabbitmq_up')).toBe(1);
    expect(s.get('rabbitmq_queues')).toBe(10000);
    expect(s.get('rabbitmq_node_running{node="rabbit2@vm"}')).toBe(1);
    expect(seriesNames(text).has('process_cpu_user_seconds_total')).toBe(true);
    const types = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
    expect(new Set(types).size).toBe(types.length);
  });

  it.skipIf(skipWithoutPromtool)('passes promtool check metrics (text format)', async () => {
    const { output, status } = promtoolCheckMetrics((await snapshot()).body('text').toString('utf8'));
    expect(output).toBe('');
    expect(status).toBe(0);
  });
});
