// Issue 32: the built exporter started with kbudde's variables but without its profile says so once, at start-up.
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { serveApi, type TestServer } from '../../support/http-server.js';

const OVERVIEW = readFileSync('test/fixtures/rabbitmq-3.10.8/overview.json', 'utf8');

let exporter: ExporterProcess | undefined;
let broker: TestServer | undefined;
afterEach(async () => {
  await exporter?.stop();
  await broker?.close();
});

it("warns once, naming kbudde's variables set (never their values) and EXPORTER_NAMING=kbudde", async () => {
  broker = await serveApi({ '/api/overview': OVERVIEW });
  exporter = await startExporter({
    env: { RABBITMQ_URL: broker.url, RABBIT_URL: 'http://kbudde-host:15672', RABBIT_PASSWORD: 'kbudde-s3cr3t', RABBIT_EXPORTERS: 'queue' },
  });
  const warnings = exporter.logs().split('\n').filter((line) => line.includes("kbudde's environment variables are set but not read"));
  expect(warnings).toHaveLength(1);
  const line = JSON.parse(warnings[0]!) as { level: string; variables: string[]; turn_on: string };
  expect(line).toMatchObject({ level: 'warn', variables: ['RABBIT_URL', 'RABBIT_PASSWORD', 'RABBIT_EXPORTERS'], turn_on: 'EXPORTER_NAMING=kbudde' });
  expect(exporter.logs()).not.toContain('kbudde-s3cr3t');
  expect(exporter.logs()).not.toContain('kbudde-host');
}, 30_000);
