// Issue 14: one sick or slow target never delays another's polls or scrapes. The built exporter
// with two targets, each a simulated management API: one stalls every request (no answer at
// all), the other answers. Each target has its own connection pool, runners and snapshot.
import { afterEach, expect, it } from 'vitest';
import { samples } from '../../support/parse-exposition.js';
import { eventually } from '../../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { startSimulator, type Simulator } from '../../support/management-simulator.js';

let sims: Simulator[] = [];
let exporter: ExporterProcess | undefined;
afterEach(async () => {
  await exporter?.stop();
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
});

const overviewPolls = (sim: Simulator) => sim.requests.filter((r) => r.startsWith('/api/overview')).length;

async function probe(exp: ExporterProcess, name: string): Promise<{ ms: number; status: number; samples: Map<string, number> }> {
  const start = Date.now();
  const res = await fetch(`${exp.url}/probe?target=${name}`);
  const text = await res.text();
  return { ms: Date.now() - start, status: res.status, samples: samples(text) };
}

it("a stalled broker delays neither the healthy target's polls nor its /probe answers", async () => {
  const healthy = await startSimulator({ queues: 50, vhosts: 2 });
  const sick = await startSimulator({ queues: 50, vhosts: 2 });
  sims = [healthy, sick];
  const target = (name: string, sim: Simulator) => [`  - name: ${name}`, `    url: ${sim.url}`, `    username: ${sim.username}`, `    password: ${sim.password}`];
  const disabled = ['nodes', 'exchanges', 'vhosts', 'connections', 'channels', 'consumers', 'streams', 'health_checks', 'limits', 'federation', 'shovels', 'feature_flags', 'inventory'];
  exporter = await startExporter({
    configYaml: [
      'poll:',
      '  interval: 1s',
      'target:',
      // One connection per target: a shared pool would be held entirely by the stalled requests.
      '  max_concurrent_requests: 1',
      'collectors:',
      '  queues:',
      '    interval: 1s',
      ...disabled.map((c) => `  ${c}:\n    enabled: false`),
      'targets:',
      ...target('healthy', healthy),
      ...target('sick', sick),
      '',
    ].join('\n'),
  });
  const exp = exporter;
  await eventually(async () => ((await probe(exp, 'healthy')).samples.get('rabbitmq_up') === 1 ? true : undefined), 20_000, 'the healthy target to be up');

  // Every request to the sick broker now hangs: queue polls until their 30 s deadline.
  sick.fault(/.*/, { kind: 'stall' });
  const sickBefore = sick.requests.length;
  await eventually(async () => (sick.requests.length > sickBefore + 1 ? true : undefined), 10_000, 'requests to hang at the sick broker');
  const pollsBefore = overviewPolls(healthy);
  const probes: { ms: number; status: number }[] = [];
  const windowEnd = Date.now() + 5000;
  while (Date.now() < windowEnd) {
    const answer = await probe(exp, 'healthy');
    probes.push(answer);
    expect(answer.samples.get('rabbitmq_up')).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
  }
  // About five polls of a 1 s interval in 5 s (jitter 10%); a shared pool or scheduler would give none.
  expect(overviewPolls(healthy) - pollsBefore).toBeGreaterThanOrEqual(3);
  expect(probes.every((p) => p.status === 200)).toBe(true);
  // Generous bounds: the stalled requests last 1 s (overview) and 30 s (queues).
  expect(Math.max(...probes.map((p) => p.ms))).toBeLessThan(1000);

  // The sick target's own scrape answers at once too, with what it knows: down.
  const sickAnswer = await eventually(async () => {
    const answer = await probe(exp, 'sick');
    return answer.samples.get('rabbitmq_up') === 0 ? answer : undefined;
  }, 10_000, 'the sick target to be down');
  expect(sickAnswer.status).toBe(200);
  expect(sickAnswer.ms).toBeLessThan(1000);
  expect(sickAnswer.samples.get('rabbitmq_exporter_collector_success{collector="overview"}')).toBe(0);
  // The healthy target serves all its queues, polled throughout.
  const healthyNow = await probe(exp, 'healthy');
  expect(healthyNow.samples.get('rabbitmq_exporter_collector_success{collector="queues"}')).toBe(1);
  expect([...healthyNow.samples.keys()].filter((k) => k.startsWith('rabbitmq_queue_messages_ready{')).length).toBe(50);
  // /metrics carries no target's series with two targets.
  const own = samples((await exp.metrics()).text);
  expect(own.has('rabbitmq_up')).toBe(false);
  expect(own.get('rabbitmq_exporter_config_last_reload_successful')).toBe(1);
}, 60_000);
