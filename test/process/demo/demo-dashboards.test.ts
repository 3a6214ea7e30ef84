// What the demo is for (issue 30 item 5): the shipped dashboards show data without a RabbitMQ. A real
// Prometheus scrapes the built demo; every panel query must run and return data, but for the panels
// listed below with the reason, and every shipped rule must evaluate.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { DASHBOARDS } from '../../../tools/dashboards/dashboard-files.js';
import { RULES_FILE } from '../../../tools/dashboards/rule-files.js';
import { OFF_BY_DEFAULT_PANELS, panelsWithoutData, panelTargets, regexValues } from '../../broker/support/dashboard-queries.js';
import { eventually } from '../../harness/eventually.js';
import { listeningPorts } from '../../harness/listening.js';
import { prometheusAvailable, startPrometheus, type PrometheusProcess } from '../../support/prometheus-process.js';
import { toolsRequired } from '../../support/required-tools.js';

const DEMO = 'dist/demo/main.js';

/** Panels the demo's cluster leaves empty, and why: `<dashboard uid> / <panel title> / <legend>`. */
const EMPTY_IN_DEMO: Record<string, string> = {
  'rabbitmq-exporter-connections / Stream connections, publishers and consumers / connections {{vhost}}': 'the simulator has no stream connections',
  'rabbitmq-exporter-connections / Stream connections, publishers and consumers / publishers {{vhost}}': 'the simulator has no stream connections',
  'rabbitmq-exporter-connections / Stream connections, publishers and consumers / consumers {{vhost}}': 'the simulator has no stream connections',
  'rabbitmq-exporter-connections / Vhost limits used / __auto': 'the recorded broker the simulator answers from had no vhost limits',
  'rabbitmq-exporter-connections / User limits used / __auto': 'the recorded broker the simulator answers from had no user limits',
  ...OFF_BY_DEFAULT_PANELS,
};

let demo: ChildProcess | undefined;
let prometheus: PrometheusProcess | undefined;
afterAll(async () => {
  await prometheus?.stop();
  demo?.kill('SIGTERM');
});

it.skipIf(!prometheusAvailable() && !toolsRequired())('the shipped dashboards show the demo\'s cluster, and its rules evaluate', async () => {
  if (!existsSync(DEMO)) throw new Error(`${DEMO} is missing: run \`npm run build\` (it builds the demo too)`);
  // Port 0, and the port read from its log: a port chosen beforehand could be taken by another
  // test's connection before the demo listened, and Prometheus would then scrape nothing.
  demo = spawn(process.execPath, [DEMO, '--web.listen-address', '127.0.0.1:0', '--poll.interval', '1s'], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const [port] = await listeningPorts(demo, { name: 'the demo', timeoutMs: 30_000 });
  const instance = `127.0.0.1:${port}`;
  prometheus = await startPrometheus([instance], '1s', { ruleFiles: [join(process.cwd(), RULES_FILE)] });
  const running = prometheus;
  const vars = { ...regexValues({ job: 'rabbitmq', cluster: 'demo-cluster', instance, vhost: 'vh1', queue: 'q1', exporter_job: 'rabbitmq', exporter: instance }), __rate_interval: '15s' };
  const { empty, errors } = await panelsWithoutData(running, panelTargets(DASHBOARDS), vars, EMPTY_IN_DEMO, 90_000);
  expect(errors).toEqual([]);
  // The list stays true: each of those panels really is empty.
  expect(empty.sort()).toEqual(Object.keys(EMPTY_IN_DEMO).sort());
  const rules = await eventually(
    async () => {
      const data = await running.api<{ groups: { rules: { name: string; health: string; lastError?: string }[] }[] }>('/api/v1/rules');
      const all = data.groups.flatMap((g) => g.rules);
      return all.every((r) => r.health !== 'unknown') ? all : undefined;
    },
    60_000,
    'every rule to be evaluated',
  );
  expect(rules.filter((r) => r.health !== 'ok')).toEqual([]);
}, 180_000);
