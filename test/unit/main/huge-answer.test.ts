// Issue 12: while the management API sent a 200 MB answer, /metrics did not answer for seconds.
// The built exporter against the simulated API whose /api/queues answers 200 MB of valid JSON
// without announcing its length: scrapes are answered throughout, the answer is refused once it
// passes the default cap (160 MiB), the transfer stops, and nothing from that poll is served.
import { afterEach, expect, it } from 'vitest';
import { eventually, parseExposition, startExporter, type ExporterProcess } from '../../support/exporter-process.js';
import { startSimulator, type Simulator } from '../../support/management-simulator.js';

let sim: Simulator | undefined;
let exporter: ExporterProcess | undefined;
afterEach(async () => {
  await exporter?.stop();
  await sim?.close();
});

const MB = 1024 * 1024;

it('a 200 MB answer: scrapes go on, the queue poll fails over the cap, nothing of it is served', async () => {
  sim = await startSimulator({ queues: 20, vhosts: 1 });
  sim.fault(/^\/api\/queues/, { kind: 'huge', bytes: 200 * MB, contentLength: false });
  const disabled = ['nodes', 'exchanges', 'vhosts', 'connections', 'channels', 'consumers', 'streams', 'health_checks', 'limits', 'federation', 'shovels', 'feature_flags', 'inventory'];
  exporter = await startExporter({
    configYaml: [
      'poll:',
      '  interval: 5s',
      'target:',
      `  url: ${sim.url}`,
      `  username: ${sim.username}`,
      `  password: ${sim.password}`,
      'collectors:',
      '  queues:',
      '    interval: 60s',
      ...disabled.map((c) => `  ${c}:\n    enabled: false`),
      '',
    ].join('\n'),
  });
  const exp = exporter;
  const running = sim;
  // Scrape while the answer is being sent, until the poll has failed.
  let scrapes = 0;
  let scrapesDuringTransfer = 0;
  const failed = await eventually(
    async () => {
      const transferring = running.bytesSent > 10 * MB && running.bytesSent < 150 * MB;
      const { status, text } = await exp.metrics();
      expect(status).toBe(200);
      scrapes++;
      if (transferring) scrapesDuringTransfer++;
      const samples = parseExposition(text);
      return samples.get('rabbitmq_exporter_collector_success{collector="queues"}') === 0 ? samples : undefined;
    },
    90_000,
    'the queue poll to fail',
  );
  expect(scrapes).toBeGreaterThan(1);
  expect(scrapesDuringTransfer).toBeGreaterThan(0);
  expect(failed.get('rabbitmq_exporter_answers_refused_total{collector="queues",path="/api/queues"}')).toBe(1);
  expect([...failed.keys()].filter((k) => k.startsWith('rabbitmq_queue_'))).toEqual([]);
  // A generous bound: the old code held the loop for seconds parsing such an answer.
  expect(failed.get('rabbitmq_exporter_event_loop_delay_max_seconds')).toBeLessThan(2);
  // The transfer stopped at the cap: the rest of the 200 MB was never sent.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(running.bytesSent).toBeLessThan(190 * MB);
  // One warning naming the path, the cap and the setting.
  const warnings = exp
    .logs()
    .split('\n')
    .filter((line) => line.includes('"level":40') && line.includes('over the cap'));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain('"path":"/api/queues"');
  expect(warnings[0]).toContain(`over the cap of 160 MiB (${160 * MB} bytes) (target.max_response_bytes)`);
}, 120_000);
