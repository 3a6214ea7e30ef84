import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { brokerInfoFromOverview } from '../../../src/broker/broker-info.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { CLUSTER_NODE_DOWN, fixtureBroker } from '../../support/fixture-broker.js';
import { runCollector } from '../../support/run-collector.js';
import { promtoolCheckMetrics, skipWithoutPromtool } from '../../support/required-tools.js';

// The whole exposition every collector enabled by default produces (the plugin collector, off by
// default, reads no management API answer: its own tests hold its recorded answers), with default options, from each directory of
// recorded answers, compared with a golden file: any change of names, labels, values or order
// shows up as a diff to review. UPDATE_GOLDEN=1 rewrites the files after a deliberate change.
const CASES: { name: string; dir: string; overrides?: Record<string, string> }[] = [
  { name: 'rabbitmq-3.10.8', dir: 'rabbitmq-3.10.8' },
  { name: 'rabbitmq-3.10.8-stats-disabled', dir: 'rabbitmq-3.10.8-stats-disabled' },
  // Recorded from private 4.0 (Debian trixie) and 4.3 (Debian sid) nodes: see each README.
  { name: 'rabbitmq-4.0.x', dir: 'rabbitmq-4.0.x' },
  { name: 'rabbitmq-4.0.x-stats-disabled', dir: 'rabbitmq-4.0.x-stats-disabled' },
  { name: 'rabbitmq-4.3.x', dir: 'rabbitmq-4.3.x' },
  { name: 'rabbitmq-4.3.x-stats-disabled', dir: 'rabbitmq-4.3.x-stats-disabled' },
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

async function exposition(dir: string, overrides?: Record<string, string>): Promise<string> {
  const api = fixtureBroker(dir, overrides);
  const broker = brokerInfoFromOverview(await api.get<Record<string, unknown>>('/api/overview'));
  const parts: string[] = [];
  for (const collector of COLLECTORS) {
    if (!collector.defaultEnabled) continue;
    try {
      parts.push((await runCollector(collector, { api, broker })).text);
    } catch (error) {
      // A collector whose paths were not recorded fails its poll, as it would on the broker.
      parts.push(`# collector ${collector.name} failed: ${(error as Error).message}\n`);
    }
  }
  return parts.join('');
}

describe('golden expositions from recorded answers', () => {
  for (const { name, dir, overrides } of CASES) {
    it(`${name} renders as recorded in test/fixtures/golden/${name}.prom`, async () => {
      const text = await exposition(`test/fixtures/${dir}`, overrides);
      const golden = `test/fixtures/golden/${name}.prom`;
      const update = 'run UPDATE_GOLDEN=1 npx vitest run --project unit test/unit/golden after a deliberate change';
      if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden, text);
      // A missing golden is a failure, not a new golden: it would pass whatever the exporter renders.
      expect(existsSync(golden), `${golden} is missing: ${update}`).toBe(true);
      expect(text, update).toBe(readFileSync(golden, 'utf8'));
    });

    it.skipIf(skipWithoutPromtool)(`${name} passes promtool check metrics`, async () => {
      const text = await exposition(`test/fixtures/${dir}`, overrides);
      const { output, status } = promtoolCheckMetrics(text.replace(/^# collector .*\n/gm, ''));
      expect(output).toBe('');
      expect(status).toBe(0);
    });
  }
});
