import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokerInfoFromOverview } from '../../../src/broker/broker-info.js';
import { pluginCollector } from '../../../src/collectors/plugin/collector.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { brokerApiAnswering } from '../../support/fake-broker-api.js';
import { REPO_ROOT } from '../../support/fixtures.js';
import { CLUSTER_NODE_DOWN, fixtureBroker } from '../../support/fixture-broker.js';
import { brokerFrom, runCollector } from '../../support/run-collector.js';
import { promtoolCheckMetrics, skipWithoutPromtool } from '../../support/required-tools.js';

// The whole exposition every collector enabled by default produces, with default options, from each directory of
// recorded answers, compared with a golden file: any change of names, labels, values or order
// shows up as a diff to review. UPDATE_GOLDEN=1 rewrites the files after a deliberate change.
const CASES: { name: string; dir: string; overrides?: Record<string, string>; everyOption?: true }[] = [
  { name: 'rabbitmq-3.10.8', dir: 'rabbitmq-3.10.8' },
  { name: 'rabbitmq-3.10.8-stats-disabled', dir: 'rabbitmq-3.10.8-stats-disabled' },
  // Recorded from private 4.0 (Debian trixie) and 4.3 (Debian sid) nodes: see each README.
  { name: 'rabbitmq-4.0.x', dir: 'rabbitmq-4.0.x' },
  { name: 'rabbitmq-4.0.x-stats-disabled', dir: 'rabbitmq-4.0.x-stats-disabled' },
  { name: 'rabbitmq-4.3.x', dir: 'rabbitmq-4.3.x' },
  { name: 'rabbitmq-4.3.x-stats-disabled', dir: 'rabbitmq-4.3.x-stats-disabled' },
  // Every option a row names on, and every collector's rates: the families off by default.
  { name: 'rabbitmq-4.3.x-every-option', dir: 'rabbitmq-4.3.x', everyOption: true },
  // Two nodes, rabbit2 stopped: only what was recorded for that moment (other paths are 404).
  {
    name: 'rabbitmq-3.10.8-cluster-node-down',
    dir: 'rabbitmq-3.10.8-cluster',
    overrides: {
      '/overview': 'overview-rabbit2-down.json',
      '/nodes': 'nodes-rabbit2-down.json',
      '/health/checks/virtual-hosts': 'health-vhosts-rabbit2-down.json',
      '/health/checks/alarms': 'health-alarms-rabbit2-down.json',
    },
  },
  // The same on 4.0 and 4.3 (test/record/record-cluster.record.ts), with the queue list and the
  // health checks of that moment.
  ...['4.0.x', '4.3.x'].map((v) => ({
    name: `rabbitmq-${v}-cluster-node-down`,
    dir: `rabbitmq-${v}-cluster`,
    overrides: CLUSTER_NODE_DOWN,
  })),
];

/**
 * A collector's options with every family of it turned on: each switch its rows name, and its
 * rates where it has them (an option that is not a switch, such as the queue families' rules, needs
 * settings of its own and stays off).
 */
function everyOption(collector: (typeof COLLECTORS)[number]): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const name of new Set([...collector.metrics.flatMap((def) => (def.option ? [def.option] : [])), 'rates'])) {
    if (collector.optionsSchema?.safeParse({ ...options, [name]: true }).success) options[name] = true;
  }
  return options;
}

async function exposition(dir: string, overrides?: Record<string, string>, allOn = false): Promise<string> {
  const api = fixtureBroker(dir, overrides);
  const broker = brokerInfoFromOverview(await api.get<Record<string, unknown>>('/api/overview'));
  const parts: string[] = [];
  for (const collector of COLLECTORS) {
    if (!collector.defaultEnabled) continue;
    try {
      parts.push((await runCollector(collector, { api, broker, ...(allOn ? { options: everyOption(collector) } : {}) })).text);
    } catch (error) {
      // A collector whose paths were not recorded fails its poll, as it would on the broker.
      parts.push(`# collector ${collector.name} failed: ${(error as Error).message}\n`);
    }
  }
  return parts.join('');
}

/**
 * The plugin collector's cases: one node whose rabbitmq_prometheus answers from a recorded
 * directory (test/fixtures/plugin-*: one file per family of /metrics/detailed, and /metrics), with
 * the Erlang VM relay on, so that every family it can serve is rendered.
 */
const PLUGIN_CASES = ['3.10.x', '4.0.x', '4.3.x'].flatMap((version) =>
  ['', '-stats-disabled'].map((statistics) => ({
    name: `plugin-${version}${statistics}`,
    broker: `rabbitmq-${version === '3.10.x' ? '3.10.8' : version}${statistics}`,
  })),
);

/** A /metrics/detailed answer of several families, as the plugin gives it: each family once (every recorded file has the identity and build families). */
function detailedAnswer(dir: string, families: readonly string[]): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const family of families) {
    const text = readFileSync(join(REPO_ROOT, dir, `${family}.prom`), 'utf8');
    for (const block of text.split(/^(?=# TYPE )/m)) {
      const name = /^# TYPE (\S+)/.exec(block)?.[1];
      if (name === undefined || seen.has(name)) continue;
      seen.add(name);
      kept.push(block);
    }
  }
  return kept.join('');
}

async function pluginExposition(name: string, broker: string): Promise<string> {
  const dir = `test/fixtures/${name}`;
  const api = brokerApiAnswering((url) => {
    if (url === '/api/nodes') return [{ name: 'rabbit@node-a', running: true }];
    const asked = new URL(url);
    if (asked.pathname === '/metrics') return readFileSync(join(REPO_ROOT, dir, 'metrics.prom'), 'utf8');
    if (asked.pathname === '/metrics/detailed') return detailedAnswer(dir, asked.searchParams.getAll('family'));
    throw new Error(`unexpected request ${url}`);
  });
  return (await runCollector(pluginCollector, { api, broker: brokerFrom(broker), options: { erlang_vm: true } })).text;
}

/**
 * The plugin's names before RabbitMQ 4.3 (prometheus.erl's) that promtool's lint finds fault with
 * (a gauge ending in _count or _total, milliseconds): relayed as named, since the upstream Erlang
 * dashboards query them so.
 */
const RELAYED_AS_NAMED = [
  'erlang_vm_atom_count',
  'erlang_vm_port_count',
  'erlang_vm_process_count',
  'erlang_vm_memory_atom_bytes_total',
  'erlang_vm_memory_bytes_total',
  'erlang_vm_memory_processes_bytes_total',
  'erlang_vm_memory_system_bytes_total',
  'erlang_vm_statistics_runtime_milliseconds',
  'erlang_vm_statistics_wallclock_time_milliseconds',
];

const ALL_CASES = [
  ...CASES.map(({ name, dir, overrides, everyOption: allOn }) => ({ name, render: () => exposition(`test/fixtures/${dir}`, overrides, allOn) })),
  ...PLUGIN_CASES.map(({ name, broker }) => ({ name, render: () => pluginExposition(name, broker) })),
];

describe('golden expositions from recorded answers', () => {
  for (const { name, render } of ALL_CASES) {
    it(`${name} renders as recorded in test/fixtures/golden/${name}.prom`, async () => {
      const text = await render();
      const golden = `test/fixtures/golden/${name}.prom`;
      const update = 'run UPDATE_GOLDEN=1 npx vitest run --project unit test/unit/golden after a deliberate change';
      if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden, text);
      // A missing golden is a failure, not a new golden: it would pass whatever the exporter renders.
      expect(existsSync(golden), `${golden} is missing: ${update}`).toBe(true);
      expect(text, update).toBe(readFileSync(golden, 'utf8'));
    });

    it.skipIf(skipWithoutPromtool)(`${name} passes promtool check metrics`, async () => {
      const text = await render();
      const { output, status } = promtoolCheckMetrics(text.replace(/^# collector .*\n/gm, ''));
      const problems = output.split('\n').filter((line) => line !== '' && !RELAYED_AS_NAMED.some((family) => line.startsWith(`${family} `)));
      expect(problems).toEqual([]);
      // 3: lint problems only (those of the relayed names); anything else fails.
      expect(status).toBe(output === '' ? 0 : 3);
    });
  }
});
