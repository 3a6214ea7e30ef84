// The built exporter as an operator runs it (npm test builds dist/ first).
import { afterEach, expect, it } from 'vitest';
import { startExporter, type ExporterProcess } from '../../support/exporter-process.js';
import { closedPort, sleep } from '../support/http-server.js';

let exporter: ExporterProcess | undefined;
afterEach(async () => {
  await exporter?.stop();
  exporter = undefined;
});

// Issue 8: SIGHUP (what operators send to reload) killed the process without a log line.
it('logs SIGHUP and goes on serving', async () => {
  const port = await closedPort();
  exporter = await startExporter({ configYaml: `target:\n  url: http://127.0.0.1:${port}\n` });
  exporter.signal('SIGHUP');
  await sleep(300);
  expect((await exporter.metrics()).status).toBe(200);
  const line = exporter.logs().split('\n').find((l) => l.includes('"signal":"SIGHUP"'));
  expect(JSON.parse(line ?? '{}')).toMatchObject({ level: 40, msg: expect.stringContaining('SIGHUP ignored') });
}, 60_000);
