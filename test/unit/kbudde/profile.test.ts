import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { brokerInfoFromOverview } from '../../../src/broker/broker-info.js';
import { catalogue } from '../../../src/catalogue/catalogue.js';
import { exporterMetrics } from '../../../src/catalogue/exporter.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import type { MetricDef } from '../../../src/metrics/metric-def.js';
import { profiledFamily, servedFamilies } from '../../../src/metrics/naming-profile.js';
import { SampleSink } from '../../../src/render/sample-sink.js';
import { concatFamilies } from '../../../src/render/text-format.js';
import { newHttpCounters, processWideFamilies } from '../../../src/self/exporter-metrics.js';
import { CLUSTER_NODE_DOWN, fixtureBroker } from '../../support/fixture-broker.js';
import { runCollector } from '../../support/run-collector.js';
import { parseExposition, type ParsedSample } from '../../support/parse-exposition.js';

/**
 * The kbudde naming profile (issue 15): what it serves is kbudde/rabbitmq_exporter's families
 * (test/fixtures/kbudde/families.json, derived from its source), with the values of the native
 * profile for the same quantities.
 */

const root = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
const kbuddeFamilies = (JSON.parse(readFileSync(root('test/fixtures/kbudde/families.json'), 'utf8')) as {
  families: { name: string; type: string; labels: string[] }[];
}).families;
const kbuddeByName = new Map(kbuddeFamilies.map((f) => [f.name, f]));
const all = catalogue(COLLECTORS);
const brokerFamilies = servedFamilies('kbudde', all).filter((f) => f.def.owner !== 'exporter');

describe('the kbudde profile\'s families', () => {
  it('serves overview, exchange and node families', () => {
    const owners = new Set(brokerFamilies.map((f) => f.def.owner));
    expect(owners).toEqual(new Set(['overview', 'exchanges', 'nodes']));
    expect(brokerFamilies.length).toBe(28);
  });

  it.each(brokerFamilies.map((f) => [f.def.name, f] as const))('%s is kbudde\'s family: name, type and label set', (name, f) => {
    const kbudde = kbuddeByName.get(name);
    expect(kbudde, `${name} is not one of kbudde's families`).toBeDefined();
    expect(f.def.type).toBe(kbudde!.type);
    expect(f.def.labels).toEqual(kbudde!.labels);
  });

  it('serves each kbudde name once', () => {
    const names = brokerFamilies.map((f) => f.def.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('maps each served family from the family docs/kbudde-mapping.md says carries the same value', () => {
    const doc = readFileSync(root('docs/kbudde-mapping.md'), 'utf8');
    const rows = new Map([...doc.matchAll(/^\| `(rabbitmq_[a-z0-9_]+)` \| `(rabbitmq_[a-z0-9_]+)` \| ([^|]*) \|/gm)].map((m) => [m[1]!, [m[2]!, m[3]!.trim()]]));
    for (const def of all) {
      const kbudde = def.names?.kbudde;
      // rabbitmq_up: the exporter computes kbudde's meaning under the profile (see the Exporter table).
      if (!kbudde || def.owner === 'exporter') continue;
      const row = rows.get(kbudde.name);
      expect(row, kbudde.name).toBeDefined();
      expect(row![0], kbudde.name).toBe(def.name);
      expect(row![1], kbudde.name).toMatch(/^same/);
    }
  });

  it('serves the exporter\'s own health series unchanged, rabbitmq_up with kbudde\'s labels, and not the native rabbitmq_exporter_build_info', () => {
    expect(profiledFamily('kbudde', exporterMetrics.up)?.def.labels).toEqual(['cluster', 'node']);
    expect(profiledFamily('kbudde', exporterMetrics.build)).toBeUndefined();
    expect(profiledFamily('kbudde', exporterMetrics.collectorSuccess)?.def).toBe(exporterMetrics.collectorSuccess);
    const own = servedFamilies('kbudde', Object.values(exporterMetrics) as MetricDef[]);
    for (const f of own) expect(f.def.name).toMatch(/^rabbitmq_(exporter_|up$)/);
  });

  it('serves kbudde\'s rabbitmq_exporter_build_info among the process-wide series instead of the native one, and keeps the rest', () => {
    const text = (naming: 'native' | 'kbudde') => Buffer.concat(concatFamilies(processWideFamilies(newHttpCounters(), naming), false)).toString('utf8');
    expect(text('native')).toMatch(/^rabbitmq_exporter_build_info\{version="[^"]+",revision="[^"]+",nodejs_version="[^"]+"\} 1$/m);
    expect(text('kbudde')).toMatch(/^rabbitmq_exporter_build_info\{version="[^"]+",revision="[^"]+",branch="",builddate=""\} 1$/m);
    expect(text('kbudde')).not.toMatch(/nodejs_version/);
    expect(text('kbudde')).toMatch(/^rabbitmq_exporter_scrapes_refused_total 0$/m);
  });

  it('adds cluster and self to the native labels, escaped, in kbudde\'s order', () => {
    const sink = new SampleSink(undefined, { name: 'kbudde', clusterName: 'a"b\\c', node: 'rabbit@x' });
    const published = all.find((d) => d.name === 'rabbitmq_exchange_messages_published_in_total')!;
    const fdUsed = all.find((d) => d.name === 'rabbitmq_process_open_fds')!;
    sink.add(published, { vhost: 'v"1', exchange: 'x' }, 3);
    sink.add(fdUsed, { node: 'rabbit@x' }, 10);
    sink.add(fdUsed, { node: 'rabbit@y' }, 20);
    const text = Buffer.concat(concatFamilies(sink.finish(), false)).toString('utf8');
    expect(text).toContain('rabbitmq_exchange_messages_published_in_total{cluster="a\\"b\\\\c",vhost="v\\"1",exchange="x"} 3\n');
    expect(text).toContain('rabbitmq_fd_used{cluster="a\\"b\\\\c",node="rabbit@x",self="1"} 10\n');
    expect(text).toContain('rabbitmq_fd_used{cluster="a\\"b\\\\c",node="rabbit@y",self="0"} 20\n');
    expect(text).toContain('# TYPE rabbitmq_fd_used gauge\n');
  });

  it('leaves out the native families it has no kbudde name for', () => {
    const sink = new SampleSink(undefined, { name: 'kbudde', clusterName: 'c', node: 'n' });
    const queueMessages = all.find((d) => d.name === 'rabbitmq_queue_messages')!;
    expect(sink.add(queueMessages, { vhost: '/', queue: 'q' }, 1)).toBe(false);
    expect(sink.notInProfile).toBe(1);
    expect(sink.finish()).toEqual([]);
  });
});

const CASES: { name: string; dir: string; overrides?: Record<string, string> }[] = [
  { name: 'rabbitmq-3.10.8', dir: 'rabbitmq-3.10.8' },
  { name: 'rabbitmq-4.3.x', dir: 'rabbitmq-4.3.x' },
  { name: 'rabbitmq-4.3.x-cluster-node-down', dir: 'rabbitmq-4.3.x-cluster', overrides: CLUSTER_NODE_DOWN },
];

const PROFILED_COLLECTORS = COLLECTORS.filter((c) => ['overview', 'exchanges', 'nodes'].includes(c.name));

async function expositions(dir: string, overrides?: Record<string, string>): Promise<{ native: string; kbudde: string; node: string; cluster: string }> {
  const api = fixtureBroker(`test/fixtures/${dir}`, overrides);
  const broker = brokerInfoFromOverview(await api.get<Record<string, unknown>>('/api/overview'));
  const profile = { name: 'kbudde', clusterName: broker.clusterName, node: broker.node } as const;
  let native = '';
  let kbudde = '';
  for (const collector of PROFILED_COLLECTORS) {
    native += (await runCollector(collector, { api, broker })).text;
    kbudde += (await runCollector(collector, { api, broker, profile })).text;
  }
  return { native, kbudde, node: broker.node, cluster: broker.clusterName };
}

describe('kbudde-profile expositions from recorded answers', () => {
  for (const { name, dir, overrides } of CASES) {
    it(`${name} renders as recorded in test/fixtures/golden/kbudde-${name}.prom, with the native values`, async () => {
      const { native, kbudde, node, cluster } = await expositions(dir, overrides);
      const golden = `test/fixtures/golden/kbudde-${name}.prom`;
      const update = 'run UPDATE_GOLDEN=1 npx vitest run --project unit test/unit/kbudde after a deliberate change';
      if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden, kbudde);
      expect(existsSync(golden), `${golden} is missing: ${update}`).toBe(true);
      expect(kbudde, update).toBe(readFileSync(golden, 'utf8'));

      const promtool = spawnSync('promtool', ['check', 'metrics'], { input: kbudde });
      if (promtool.error === undefined) expect(promtool.status, `${promtool.stdout}${promtool.stderr}`).toBe(0);

      // Every kbudde sample is the native sample of the same quantity: same value, labels plus cluster and self.
      const nativeSamples = parseExposition(native).parsed;
      const kbuddeSamples = parseExposition(kbudde).parsed;
      const nativeOf = new Map(brokerFamilies.map((f) => [f.def.name, all.find((d) => d.names?.kbudde?.name === f.def.name)!]));
      expect(kbuddeSamples.length).toBeGreaterThan(20);
      for (const sample of kbuddeSamples) {
        const def = nativeOf.get(sample.name);
        expect(def, sample.name).toBeDefined();
        const { cluster: clusterLabel, self, ...kbuddeLabels } = sample.labels;
        expect(clusterLabel, sample.name).toBe(cluster);
        if (def!.labels.includes('node')) expect(self, `${sample.name} ${kbuddeLabels.node}`).toBe(kbuddeLabels.node === node ? '1' : '0');
        else expect(self).toBeUndefined();
        // Back to the native labels: renamed ones (labelFrom) under their native name, the answering node (not a native label) checked and dropped.
        const labels: Record<string, string> = {};
        for (const [name, value] of Object.entries(kbuddeLabels)) {
          const native = def!.names!.kbudde!.labelFrom?.[name] ?? name;
          if (def!.labels.includes(native)) labels[native] = value;
          else expect({ [name]: value }, sample.name).toEqual({ node });
        }
        const match = nativeSamples.filter((n: ParsedSample) => n.name === def!.name && sameLabels(pick(n.labels, Object.keys(labels)), labels));
        expect(match.map((n) => n.value), `${sample.name} ${JSON.stringify(sample.labels)}`).toEqual([sample.value]);
      }
      // And nothing of those native families is left out.
      for (const [kbuddeName, def] of nativeOf) {
        const count = nativeSamples.filter((n) => n.name === def.name).length;
        expect(kbuddeSamples.filter((s) => s.name === kbuddeName).length, kbuddeName).toBe(count);
      }
    });
  }
});

/** The native labels the kbudde family keeps (rabbitmq_version_info drops management_version and the product labels). */
function pick(labels: Record<string, string>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, labels[name] ?? '']));
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
