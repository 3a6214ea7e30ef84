// Issue 15: the exporter's own kbudde families: rabbitmq_up{cluster,node} with kbudde's meaning,
// rabbitmq_module_up and rabbitmq_module_scrape_duration_seconds per kbudde module,
// rabbitmq_exporter_build_info with kbudde's labels; names, types and labels as in families.json.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exporterMetrics } from '../../../../src/collectors/exporter/metrics.js';
import { kbuddeExporterMetrics } from '../../../../src/profiles/kbudde/own-metrics.js';
import { kbuddeModulesOf } from '../../../../src/profiles/kbudde/modules.js';
import { isPerValue, type ProfiledFamily } from '../../../../src/exposition/naming-profile.js';
import type { MetricDef } from '../../../../src/model/metric-def.js';
import { kbuddeNames } from '../../../../src/profiles/kbudde/names.js';

/** The family a row is served as (these rows are served as one family, not one per label value). */
function profiledFamily(def: MetricDef): ProfiledFamily | undefined {
  const row = kbuddeNames.served(def);
  if (row && isPerValue(row)) throw new Error(`${def.name} is served as one family per label value`);
  return row;
}
import { exporterFamilies, newHttpCounters } from '../../../../src/pipeline/own-series.js';
import type { ProfileTargetView } from '../../../../src/exposition/naming-profile.js';
import { BUILD_INFO, REVISION, VERSION } from '../../../../src/pipeline/version.js';
import { Exposition } from '../../../../src/exposition/exposition.js';
import { TargetState } from '../../../../src/pipeline/target-state.js';
import { samples } from '../../../support/parse-exposition.js';

const kbuddeFamilies = (JSON.parse(readFileSync('test/fixtures/kbudde/families.json', 'utf8')) as { families: { name: string; type: string; labels: string[]; module: string }[] }).families;

describe("the exporter's kbudde families", () => {
  const served = [profiledFamily(exporterMetrics.up)!.def, ...Object.values(kbuddeExporterMetrics)];

  it('are every family of kbudde\'s exporter module, with its name, type and label set', () => {
    expect(served.map((d) => d.name).sort()).toEqual(kbuddeFamilies.filter((f) => f.module === 'exporter').map((f) => f.name).sort());
    for (const def of served) {
      const kbudde = kbuddeFamilies.find((f) => f.name === def.name)!;
      expect({ name: def.name, type: def.type, labels: def.labels }).toEqual({ name: kbudde.name, type: kbudde.type, labels: kbudde.labels });
    }
  });

  it('map collectors to kbudde modules: nodes is memory too when it reads the memory breakdown, health checks are aliveness when they test it', () => {
    expect(kbuddeModulesOf('nodes', { memory_breakdown: true })).toEqual(['node', 'memory']);
    expect(kbuddeModulesOf('nodes', { memory_breakdown: false })).toEqual(['node']);
    expect(kbuddeModulesOf('health_checks', { aliveness_vhosts: [] })).toEqual([]);
    expect(kbuddeModulesOf('health_checks', { aliveness_vhosts: ['/'] })).toEqual(['aliveness']);
    expect(kbuddeModulesOf('queues', {})).toEqual(['queue']);
    expect(kbuddeModulesOf('vhosts', {})).toEqual([]);
  });
});

function state(): TargetState {
  const s = new TargetState('default', 'http://x');
  s.register('overview', 1000, 3000, { decidesUp: true });
  for (const name of ['nodes', 'queues', 'shovels', 'vhosts']) s.register(name, 1000, 3000);
  return s;
}

const RUNNING = new Map<string, Record<string, unknown>>([
  ['overview', {}],
  ['nodes', { memory_breakdown: true }],
  ['queues', {}],
  ['shovels', {}],
  ['vhosts', {}],
]);

function render(target: TargetState, broker: { clusterName: string; node: string } | undefined, naming: 'native' | 'kbudde' = 'kbudde'): Map<string, number> {
  const view: ProfileTargetView = { broker: () => broker, running: RUNNING };
  return samples(Exposition.of(exporterFamilies(target, { requests: 0, bytesRead: 0 }, newHttpCounters(), 11_000, true, naming, view)).body('text').toString());
}

describe('exporterFamilies under the kbudde profile', () => {
  const broker = { clusterName: 'c1', node: 'rabbit@a' };
  const labels = (module: string) => `{cluster="c1",node="rabbit@a",module="${module}"}`;

  it('serves rabbitmq_up 1 and every module up, with durations, when every poll succeeded', () => {
    const s = state();
    s.succeeded('overview', [], 0.5, 0, 10_000);
    s.succeeded('nodes', [], 0.25, 0, 10_000);
    s.succeeded('queues', [], 1.5, 0, 10_000);
    s.succeeded('shovels', [], 0.125, 0, 10_000);
    const out = render(s, broker);
    expect(out.get('rabbitmq_up{cluster="c1",node="rabbit@a"}')).toBe(1);
    for (const module of ['overview', 'node', 'memory', 'queue', 'shovel']) expect(out.get(`rabbitmq_module_up${labels(module)}`), module).toBe(1);
    expect(out.get(`rabbitmq_module_scrape_duration_seconds${labels('queue')}`)).toBe(1.5);
    expect(out.get(`rabbitmq_module_scrape_duration_seconds${labels('memory')}`)).toBe(0.25);
    expect(out.get(`rabbitmq_exporter_build_info{version="${VERSION}",revision="${REVISION}",branch="${BUILD_INFO.branch}",builddate="${BUILD_INFO.buildDate}"}`)).toBe(1);
    // The native health series stay; the native up and build_info do not.
    expect(out.get('rabbitmq_exporter_collector_success{collector="vhosts"}')).toBeUndefined();
    expect(out.get('rabbitmq_exporter_collector_success{collector="queues"}')).toBe(1);
    expect(out.has('rabbitmq_up')).toBe(false);
    expect([...out.keys()].filter((k) => k.includes('nodejs_version'))).toEqual([]);
    expect([...out.keys()].filter((k) => k.startsWith('rabbitmq_module_up')).length).toBe(5);
  });

  it('serves rabbitmq_up 0 when one module\'s last poll failed although the overview succeeded (kbudde\'s meaning)', () => {
    const s = state();
    s.succeeded('overview', [], 0.5, 0, 10_000);
    s.succeeded('nodes', [], 0.25, 0, 10_000);
    s.failed('shovels', 'GET /api/shovels: 500', 0.1, 10_000);
    // A collector kbudde has no module for does not count.
    s.failed('vhosts', 'down', 0.1, 10_000);
    const out = render(s, broker);
    expect(out.get('rabbitmq_up{cluster="c1",node="rabbit@a"}')).toBe(0);
    expect(out.get(`rabbitmq_module_up${labels('shovel')}`)).toBe(0);
    expect(out.get(`rabbitmq_module_up${labels('node')}`)).toBe(1);
    // Not polled yet: no module series, and not counted as failed.
    expect(out.has(`rabbitmq_module_up${labels('queue')}`)).toBe(false);
    s.succeeded('shovels', [], 0.1, 11_000);
    expect(render(s, broker).get('rabbitmq_up{cluster="c1",node="rabbit@a"}')).toBe(1);
  });

  it('serves rabbitmq_up 0 when the overview failed, and empty cluster and node labels and no durations until /api/overview answered', () => {
    const s = state();
    s.failed('overview', 'connection refused', 0.01, 10_000);
    const out = render(s, undefined);
    expect(out.get('rabbitmq_up{cluster="",node=""}')).toBe(0);
    expect(out.get('rabbitmq_module_up{cluster="",node="",module="overview"}')).toBe(0);
    expect([...out.keys()].filter((k) => k.startsWith('rabbitmq_module_scrape_duration_seconds'))).toEqual([]);
  });

  it('leaves the native profile as it was: no module families, rabbitmq_up from the overview alone', () => {
    const s = state();
    s.succeeded('overview', [], 0.5, 0, 10_000);
    s.failed('shovels', 'down', 0.1, 10_000);
    const out = render(s, broker, 'native');
    expect(out.get('rabbitmq_up')).toBe(1);
    expect([...out.keys()].filter((k) => k.startsWith('rabbitmq_module_'))).toEqual([]);
    expect(out.get(`rabbitmq_exporter_build_info{version="${VERSION}",revision="${REVISION}",branch="${BUILD_INFO.branch}",nodejs_version="${process.version}"}`)).toBe(1);
  });
});
