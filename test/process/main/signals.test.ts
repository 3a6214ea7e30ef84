// Reload on the built exporter as an operator runs it (npm test builds dist/ first).
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { eventually } from '../../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { serveApi, type TestServer } from '../../support/http-server.js';

const OVERVIEW = readFileSync('test/fixtures/rabbitmq-3.10.8/overview.json', 'utf8');

let exporter: ExporterProcess | undefined;
const brokers: TestServer[] = [];
afterEach(async () => {
  await exporter?.stop();
  exporter = undefined;
  await Promise.all(brokers.splice(0).map((b) => b.close()));
});

// Issue 8: SIGHUP (what operators send to reload) killed the process without a log line.
// Issue 14: SIGHUP and POST /-/reload re-read the configuration; a bad one changes nothing.
it('reloads on SIGHUP and POST /-/reload; a configuration that cannot be used keeps the running one', async () => {
  const [first, second] = [await serveApi({ '/api/overview': OVERVIEW }), await serveApi({ '/api/overview': OVERVIEW })];
  brokers.push(first, second);
  const yaml = (url: string) => `poll:\n  interval: 1s\ntarget:\n  url: ${url}\n`;
  exporter = await startExporter({ configYaml: yaml(first.url) });
  expect(await exporter.value('rabbitmq_exporter_config_last_reload_successful')).toBe(1);

  writeFileSync(exporter.configFile, yaml(second.url));
  exporter.signal('SIGHUP');
  await eventually(async () => (second.requests.length > 0 ? true : undefined), 20_000, 'polls of the second broker');
  // The new target may poll before the reload's log line has come through the child's stdout pipe.
  const reloaded = /"target_restarted":true,"msg":"configuration reloaded"/;
  await eventually(async () => (reloaded.test(exporter!.logs()) ? true : undefined), 20_000, 'the reload logged');

  writeFileSync(exporter.configFile, `${yaml(first.url)}pol:\n  interval: 2s\n`);
  const refused = await fetch(`${exporter.url}/-/reload`, { method: 'POST' });
  expect(refused.status).toBe(500);
  expect(await refused.text()).toContain('key "pol": unknown key');
  expect(await exporter.value('rabbitmq_exporter_config_last_reload_successful')).toBe(0);
  const polled = second.requests.length;
  await eventually(async () => (second.requests.length > polled ? true : undefined), 20_000, 'the second broker still polled');

  writeFileSync(exporter.configFile, yaml(second.url));
  const askedAt = Math.floor(Date.now() / 1000);
  const accepted = await fetch(`${exporter.url}/-/reload`, { method: 'POST' });
  expect(accepted.status).toBe(200);
  expect(await exporter.value('rabbitmq_exporter_config_last_reload_successful')).toBe(1);
  const loadedAt = await exporter.value('rabbitmq_exporter_config_last_reload_success_timestamp_seconds');
  expect(loadedAt).toBeGreaterThanOrEqual(askedAt);
  expect(loadedAt).toBeLessThanOrEqual(Date.now() / 1000);
  // A GET is the wrong method (issue 24: it answered 404).
  const wrongMethod = await fetch(`${exporter.url}/-/reload`);
  expect(wrongMethod.status).toBe(405);
  expect(wrongMethod.headers.get('allow')).toBe('POST');
}, 90_000);
