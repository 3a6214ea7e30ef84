import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { brokerInfoFromOverview } from '../../../../src/broker/broker-info.js';
import { catalogue } from '../../../../src/collectors/catalogue.js';
import { exporterMetrics } from '../../../../src/collectors/exporter/metrics.js';
import { COLLECTORS } from '../../../../src/collectors/registry.js';
import type { MetricDef } from '../../../../src/model/metric-def.js';
import { isPerValue, labelFieldsRead, nativeNames, servedFamilies, type ProfiledFamily, type ProfiledRow } from '../../../../src/exposition/naming-profile.js';
import { SampleSink } from '../../../../src/exposition/sample-sink.js';
import { chunkText, concatFamilies } from '../../../../src/exposition/text-format.js';
import { newHttpCounters, processWideFamilies } from '../../../../src/pipeline/own-series.js';
import { CLUSTER_NODE_DOWN, fixtureBroker } from '../../../support/fixture-broker.js';
import { runCollector } from '../../../support/run-collector.js';
import { promtoolCheckMetrics, skipWithoutPromtool } from '../../../support/required-tools.js';
import { parseExposition, type ParsedSample } from '../../../support/parse-exposition.js';
import { kbuddeNames } from '../../../../src/profiles/kbudde/names.js';

/**
 * The kbudde naming profile (issue 15): what it serves is kbudde/rabbitmq_exporter's families
 * (test/fixtures/kbudde/families.json, derived from its source), with the values of the native
 * profile for the same quantities.
 */

const root = (path: string) => fileURLToPath(new URL(`../../../../${path}`, import.meta.url));
const kbuddeFamilies = (JSON.parse(readFileSync(root('test/fixtures/kbudde/families.json'), 'utf8')) as {
  families: { name: string; type: string; module: string; labels: string[] }[];
}).families;
const kbuddeByName = new Map(kbuddeFamilies.map((f) => [f.name, f]));
const all = catalogue(COLLECTORS);
const brokerFamilies = servedFamilies(kbuddeNames, all).filter((f) => f.def.owner !== 'exporter');

const byName = (name: string) => all.find((d) => d.name === name)!;
/** A family served as one family (not one per label value). */
const single = (row: ProfiledRow | undefined): ProfiledFamily => {
  if (!row || isPerValue(row)) throw new Error('not a single family');
  return row;
};

/** The mapping's rows: kbudde name → [ours (a family, maybe with a label selector), value column]. */
const mappingRows = new Map(
  [...readFileSync(root('docs/kbudde-mapping.md'), 'utf8').matchAll(/^\| `(rabbitmq_[a-z0-9_]+)` \| `(rabbitmq_[a-z0-9_]+(?:\{[a-z_]+="[a-z_-]+"\})?)` \| ([^|]*) \|/gm)].map((m) => [m[1]!, [m[2]!, m[3]!.trim()] as const]),
);

/**
 * The kbudde modules this profile serves, with each module's label set (the others are other parts
 * of issue 15; so is rabbitmq_version_info, whose labels are its own).
 */
const MODULES_SERVED: Record<string, string[]> = {
  overview: ['cluster'],
  queue: ['cluster', 'vhost', 'queue', 'durable', 'policy', 'self'],
  exchange: ['cluster', 'vhost', 'exchange'],
  node: ['cluster', 'node', 'self'],
  memory: ['cluster', 'node', 'self'],
  shovel: ['cluster', 'vhost', 'shovel', 'type', 'self', 'state'],
  federation: ['cluster', 'vhost', 'node', 'queue', 'exchange', 'self', 'status'],
  aliveness: ['status', 'error', 'reason'],
  connections: ['cluster', 'vhost', 'node', 'peer_host', 'user', 'self'],
};

describe('the kbudde profile\'s families', () => {
  it('serves overview, queue, exchange, node, connections, shovel, federation and aliveness families', () => {
    const owners = new Set(brokerFamilies.map((f) => f.def.owner));
    expect(owners).toEqual(new Set(['overview', 'queues', 'exchanges', 'nodes', 'connections', 'shovels', 'federation', 'health_checks']));
    expect(brokerFamilies.length).toBe(94);
  });

  it('serves every family of those modules that docs/kbudde-mapping.md maps to one of ours, with the same value or a conversion', () => {
    const served = new Set(brokerFamilies.map((f) => f.def.name));
    const expected = kbuddeFamilies.filter((f) => {
      const row = mappingRows.get(f.name);
      return row !== undefined && /^(same|ours ×)/.test(row[1]) && String(MODULES_SERVED[f.module]) === String(f.labels);
    });
    expect(expected.length).toBeGreaterThan(50);
    for (const f of expected) expect(served.has(f.name), f.name).toBe(true);
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

  it('maps each served family from the family docs/kbudde-mapping.md says carries the same value, or the conversion it names', () => {
    for (const def of all) {
      const row = kbuddeNames.served(def);
      // rabbitmq_up: the exporter computes kbudde's meaning under the profile (see the Exporter table).
      if (!row || !def.names?.kbudde || def.owner === 'exporter') continue;
      const served = isPerValue(row) ? [...row.families].map(([value, f]) => [f, `${def.name}{${row.label}="${value}"}`] as const) : [[row, def.name] as const];
      for (const [f, ours] of served) {
        const mapped = mappingRows.get(f.def.name);
        expect(mapped, f.def.name).toBeDefined();
        expect(mapped![0], f.def.name).toBe(ours);
        if (f.scale === undefined) expect(mapped![1], f.def.name).toMatch(/^same/);
        else expect(mapped![1], f.def.name).toBe(`ours × ${f.scale}`);
      }
    }
  });

  it('serves the exporter\'s own health series unchanged, rabbitmq_up with kbudde\'s labels, and not the native rabbitmq_exporter_build_info', () => {
    expect(single(kbuddeNames.served(exporterMetrics.up)).def.labels).toEqual(['cluster', 'node']);
    expect(kbuddeNames.served(exporterMetrics.build)).toBeUndefined();
    expect(single(kbuddeNames.served(exporterMetrics.collectorSuccess)).def).toBe(exporterMetrics.collectorSuccess);
    const own = servedFamilies(kbuddeNames, Object.values(exporterMetrics) as MetricDef[]);
    for (const f of own) expect(f.def.name).toMatch(/^rabbitmq_(exporter_|up$)/);
  });

  it('serves kbudde\'s rabbitmq_exporter_build_info among the process-wide series instead of the native one, and keeps the rest', () => {
    const text = (naming: 'native' | 'kbudde') => Buffer.concat(concatFamilies(processWideFamilies(newHttpCounters(), naming), false).map(chunkText)).toString('utf8');
    expect(text('native')).toMatch(/^rabbitmq_exporter_build_info\{version="[^"]+",revision="[^"]+",branch="[^"]+",nodejs_version="[^"]+"\} 1$/m);
    expect(text('kbudde')).toMatch(/^rabbitmq_exporter_build_info\{version="[^"]+",revision="[^"]+",branch="[^"]+",builddate="[^"]+"\} 1$/m);
    expect(text('kbudde')).not.toMatch(/nodejs_version/);
    expect(text('kbudde')).toMatch(/^rabbitmq_exporter_scrapes_refused_total 0$/m);
  });

  it('adds cluster and self to the native labels, escaped, in kbudde\'s order', () => {
    const sink = new SampleSink(undefined, { names: kbuddeNames, clusterName: 'a"b\\c', node: 'rabbit@x' });
    const published = all.find((d) => d.name === 'rabbitmq_exchange_messages_published_in_total')!;
    const fdUsed = all.find((d) => d.name === 'rabbitmq_process_open_fds')!;
    sink.add(published, { vhost: 'v"1', exchange: 'x' }, 3);
    sink.add(fdUsed, { node: 'rabbit@x' }, 10);
    sink.add(fdUsed, { node: 'rabbit@y' }, 20);
    const text = Buffer.concat(concatFamilies(sink.finish(), false).map(chunkText)).toString('utf8');
    expect(text).toContain('rabbitmq_exchange_messages_published_in_total{cluster="a\\"b\\\\c",vhost="v\\"1",exchange="x"} 3\n');
    expect(text).toContain('rabbitmq_fd_used{cluster="a\\"b\\\\c",node="rabbit@x",self="1"} 10\n');
    expect(text).toContain('rabbitmq_fd_used{cluster="a\\"b\\\\c",node="rabbit@y",self="0"} 20\n');
    expect(text).toContain('# TYPE rabbitmq_fd_used gauge\n');
  });

  it('leaves out the native families it has no kbudde name for', () => {
    const sink = new SampleSink(undefined, { names: kbuddeNames, clusterName: 'c', node: 'n' });
    expect(sink.add(byName('rabbitmq_queue_messages_paged_out'), { vhost: '/', queue: 'q' }, 1, {})).toBe(false);
    expect(sink.add(byName('rabbitmq_vhost_queues'), { vhost: '/', type: 'classic' }, 1)).toBe(false);
    expect(sink.notInProfile).toBe(2);
    expect(sink.finish()).toEqual([]);
  });

  it('reads a queue family\'s durable, policy and self from the queue\'s record, in kbudde\'s label order', () => {
    const sink = new SampleSink(undefined, { names: kbuddeNames, clusterName: 'c', node: 'rabbit@a' });
    const messages = byName('rabbitmq_queue_messages');
    sink.add(messages, { vhost: '/', queue: 'q1' }, 1, { durable: true, policy: 'p"1', node: 'rabbit@a' });
    sink.add(messages, { vhost: '/', queue: 'q2' }, 2, { durable: false, policy: null, node: 'rabbit@b' });
    sink.add(messages, { vhost: '/', queue: 'q3' }, 3, { durable: true, policy: '', node: 'rabbit@b' });
    const text = Buffer.concat(concatFamilies(sink.finish(), false).map(chunkText)).toString('utf8');
    expect(text).toContain('rabbitmq_queue_messages{cluster="c",vhost="/",queue="q1",durable="true",policy="p\\"1",self="1"} 1\n');
    expect(text).toContain('rabbitmq_queue_messages{cluster="c",vhost="/",queue="q2",durable="false",policy="",self="0"} 2\n');
    expect(text).toContain('rabbitmq_queue_messages{cluster="c",vhost="/",queue="q3",durable="true",policy="",self="0"} 3\n');
  });

  it('refuses a queue sample written without its record: its labels could not be known', () => {
    const sink = new SampleSink(undefined, { names: kbuddeNames, clusterName: 'c', node: 'n' });
    expect(() => sink.add(byName('rabbitmq_queue_messages'), { vhost: '/', queue: 'q' }, 1)).toThrow('rabbitmq_queue_messages: its labels are read from the broker\'s record');
  });

  it('serves manual-ack deliveries as rabbitmq_queue_messages_delivered_total and auto-ack ones as _delivered_noack_total (kbudde\'s meaning)', () => {
    expect(single(kbuddeNames.served(byName('rabbitmq_queue_messages_delivered_ack_total'))).def.name).toBe('rabbitmq_queue_messages_delivered_total');
    expect(single(kbuddeNames.served(byName('rabbitmq_queue_messages_delivered_total'))).def.name).toBe('rabbitmq_queue_messages_delivered_noack_total');
    expect(single(kbuddeNames.served(byName('rabbitmq_queue_messages_delivered_ack_per_second'))).def.name).toBe('rabbitmq_queue_messages_deliver_rate');
    expect(single(kbuddeNames.served(byName('rabbitmq_queue_messages_delivered_per_second'))).def.name).toBe('rabbitmq_queue_messages_deliver_no_ack_rate');
  });

  it('serves rabbitmq_uptime in milliseconds, the API\'s own number, where ours is in seconds', () => {
    const uptime = byName('rabbitmq_erlang_uptime_seconds');
    const sink = new SampleSink(undefined, { names: kbuddeNames, clusterName: 'c', node: 'rabbit@a' });
    // Read as seconds (ms / 1000); times 1000 in floating point, 1001 ms would come back as 1000.9999999999999.
    for (const ms of [1001, 2023, 22990, 987_654_321]) sink.add(uptime, { node: `rabbit@${ms}` }, ms / 1000);
    const text = Buffer.concat(concatFamilies(sink.finish(), false).map(chunkText)).toString('utf8');
    for (const ms of [1001, 2023, 22990, 987_654_321]) expect(text).toContain(`rabbitmq_uptime{cluster="c",node="rabbit@${ms}",self="0"} ${ms}\n`);
    expect(single(kbuddeNames.served(uptime)).scale).toBe(1000);
  });

  it('serves the memory breakdown as one family per area, leaving out the areas kbudde has no name for', () => {
    const sink = new SampleSink(undefined, { names: kbuddeNames, clusterName: 'c', node: 'rabbit@a' });
    const area = byName('rabbitmq_node_memory_bytes');
    const total = byName('rabbitmq_node_memory_total_bytes');
    sink.add(area, { node: 'rabbit@a', area: 'binary' }, 100);
    sink.add(area, { node: 'rabbit@b', area: 'binary' }, 200);
    sink.add(area, { node: 'rabbit@a', area: 'code' }, 300);
    sink.add(total, { node: 'rabbit@a', measure: 'rss' }, 400);
    // No kbudde name: a later area, and connection_readers (declared by kbudde, never served).
    expect(sink.add(area, { node: 'rabbit@a', area: 'quorum_ets' }, 500)).toBe(false);
    expect(sink.add(area, { node: 'rabbit@a', area: 'connection_readers' }, 600)).toBe(false);
    expect(sink.notInProfile).toBe(2);
    const text = Buffer.concat(concatFamilies(sink.finish(), false).map(chunkText)).toString('utf8');
    expect(text).toContain('# TYPE rabbitmq_memory_binary_bytes gauge\nrabbitmq_memory_binary_bytes{cluster="c",node="rabbit@a",self="1"} 100\nrabbitmq_memory_binary_bytes{cluster="c",node="rabbit@b",self="0"} 200\n');
    expect(text).toContain('rabbitmq_memory_code_bytes{cluster="c",node="rabbit@a",self="1"} 300\n');
    expect(text).toContain('rabbitmq_memory_total_rss_bytes{cluster="c",node="rabbit@a",self="1"} 400\n');
    expect(text).not.toMatch(/quorum_ets|connection_readers|area=/);
  });

  it('refuses a family per value of a label the row does not have', () => {
    const def = { ...byName('rabbitmq_node_memory_bytes'), names: { kbudde: { familyPerValue: { label: 'zone', names: { a: 'rabbitmq_a' } } } } };
    expect(() => kbuddeNames.served(def)).toThrow('its kbudde families are per value of zone');
  });

  it('says which record fields its labels read: durable, policy and node of a queue, state and idle_since for its state; none under the native names', () => {
    const queues = COLLECTORS.find((c) => c.name === 'queues')!.metrics;
    expect(labelFieldsRead(kbuddeNames, queues).sort()).toEqual(['durable', 'idle_since', 'node', 'policy', 'state']);
    expect(labelFieldsRead(nativeNames, queues)).toEqual([]);
    expect(new SampleSink().labelFields(queues)).toEqual([]);
  });
});

const CASES: { name: string; dir: string; overrides?: Record<string, string> }[] = [
  { name: 'rabbitmq-3.10.8', dir: 'rabbitmq-3.10.8' },
  { name: 'rabbitmq-4.3.x', dir: 'rabbitmq-4.3.x' },
  { name: 'rabbitmq-4.3.x-cluster-node-down', dir: 'rabbitmq-4.3.x-cluster', overrides: CLUSTER_NODE_DOWN },
];

const PROFILED_COLLECTORS = COLLECTORS.filter((c) => ['overview', 'queues', 'exchanges', 'nodes'].includes(c.name));
/** The queue collector's rate gauges too (off by default): kbudde's `rabbitmq_queue_*_rate`. */
const OPTIONS: Record<string, Record<string, unknown>> = { queues: { rates: true } };

/** Each kbudde family served, with the native family (and, per value, the label value) it comes from. */
const SOURCES = new Map<string, { def: MetricDef; family: ProfiledFamily; label?: readonly [string, string] }>();
for (const def of all) {
  const row = def.owner === 'exporter' ? undefined : kbuddeNames.served(def);
  if (!row) continue;
  if (isPerValue(row)) for (const [value, family] of row.families) SOURCES.set(family.def.name, { def, family, label: [row.label, value] });
  else SOURCES.set(row.def.name, { def, family: row });
}

type Json = Record<string, unknown>;

async function expositions(dir: string, overrides?: Record<string, string>) {
  const api = fixtureBroker(`test/fixtures/${dir}`, overrides);
  const broker = brokerInfoFromOverview(await api.get<Json>('/api/overview'));
  const profile = { names: kbuddeNames, clusterName: broker.clusterName, node: broker.node } as const;
  let native = '';
  let kbudde = '';
  for (const collector of PROFILED_COLLECTORS) {
    const options = OPTIONS[collector.name];
    native += (await runCollector(collector, { api, broker, options })).text;
    kbudde += (await runCollector(collector, { api, broker, options, profile })).text;
  }
  const queues = new Map((await api.get<Json[]>('/api/queues')).map((q) => [`${q.vhost as string}\u0000${q.name as string}`, q]));
  return { native, kbudde, node: broker.node, cluster: broker.clusterName, queues };
}

describe('kbudde-profile expositions from recorded answers', () => {
  for (const { name, dir, overrides } of CASES) {
    it(`${name} renders as recorded in test/fixtures/golden/kbudde-${name}.prom, with the native values`, async () => {
      const { native, kbudde, node, cluster, queues } = await expositions(dir, overrides);
      const golden = `test/fixtures/golden/kbudde-${name}.prom`;
      const update = 'run UPDATE_GOLDEN=1 npx vitest run --project unit test/unit/profiles/kbudde after a deliberate change';
      if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden, kbudde);
      expect(existsSync(golden), `${golden} is missing: ${update}`).toBe(true);
      expect(kbudde, update).toBe(readFileSync(golden, 'utf8'));


      // Every kbudde sample is the native sample of the same quantity: same value (times the
      // profile's factor), the native labels plus cluster, self and the queue's durable and policy.
      const nativeSamples = parseExposition(native).parsed;
      const kbuddeSamples = parseExposition(kbudde).parsed;
      expect(kbuddeSamples.length).toBeGreaterThan(20);
      const queueSamples = kbuddeSamples.filter((s) => s.labels.queue !== undefined);
      if (queues.size > 0) expect(queueSamples.length).toBeGreaterThan(queues.size);
      for (const sample of kbuddeSamples) {
        const source = SOURCES.get(sample.name);
        expect(source, sample.name).toBeDefined();
        const { def, family, label } = source!;
        const { cluster: clusterLabel, self, durable, policy, ...kbuddeLabels } = sample.labels;
        const what = `${sample.name} ${JSON.stringify(sample.labels)}`;
        expect(clusterLabel, what).toBe(cluster);
        if (def.owner === 'queues') {
          const record = queues.get(`${kbuddeLabels.vhost}\u0000${kbuddeLabels.queue}`);
          expect(record, what).toBeDefined();
          expect(durable, what).toBe(String(record!.durable));
          expect(policy, what).toBe(typeof record!.policy === 'string' ? record!.policy : '');
          expect(self, what).toBe(record!.node === node ? '1' : '0');
        } else {
          expect([durable, policy], what).toEqual([undefined, undefined]);
          if (def.labels.includes('node')) expect(self, what).toBe(kbuddeLabels.node === node ? '1' : '0');
          else expect(self, what).toBeUndefined();
        }
        // Back to the native labels: renamed ones (labelFrom) under their native name, the answering node (not a native label) checked and dropped,
        // derived ones (kbudde's queue state) checked against the queue's record and dropped.
        const labels: Record<string, string> = {};
        for (const [name, value] of Object.entries(kbuddeLabels)) {
          const derived = def.names?.kbudde?.derived?.[name];
          if (derived) {
            const record = queues.get(`${kbuddeLabels.vhost}\u0000${kbuddeLabels.queue}`);
            expect(value, what).toBe(derived.value(record!));
            continue;
          }
          const native = def.names?.kbudde?.labelFrom?.[name] ?? name;
          if (def.labels.includes(native)) labels[native] = value;
          else expect({ [name]: value }, what).toEqual({ node });
        }
        const nativeLabels = label ? { ...labels, [label[0]]: label[1] } : labels;
        const match = nativeSamples.filter((n: ParsedSample) => n.name === def.name && sameLabels(pick(n.labels, Object.keys(nativeLabels)), nativeLabels));
        expect(match.length, what).toBe(1);
        if (family.scale === undefined) expect(sample.value, what).toBe(match[0]!.value);
        else expect(sample.value, what).toBeCloseTo(match[0]!.value * family.scale, 6);
      }
      // rabbitmq_uptime is the API's own number of milliseconds, exactly.
      const nodes = await fixtureBroker(`test/fixtures/${dir}`, overrides).get<Json[]>('/api/nodes');
      const uptimes = kbuddeSamples.filter((s) => s.name === 'rabbitmq_uptime');
      expect(uptimes.length).toBeGreaterThan(0);
      for (const s of uptimes) expect(s.value, s.labels.node).toBe(nodes.find((n) => n.name === s.labels.node)?.uptime);
      // And nothing of those native families is left out.
      for (const [kbuddeName, { def, label }] of SOURCES) {
        const count = nativeSamples.filter((n) => n.name === def.name && (!label || n.labels[label[0]] === label[1])).length;
        expect(kbuddeSamples.filter((s) => s.name === kbuddeName).length, kbuddeName).toBe(count);
      }
    });

    it.skipIf(skipWithoutPromtool)(`${name} under the kbudde profile passes promtool check metrics`, async () => {
      const { output, status } = promtoolCheckMetrics((await expositions(dir, overrides)).kbudde);
      expect(status, output).toBe(0);
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
