// Issue 24, item 4: a password_file that is a FIFO stopped /metrics and /-/healthy during a reload
// (the file was read synchronously, waiting for a writer that never comes), and
// RABBITMQ_PASSWORD_FILE=/dev/zero grew to gigabytes and never started, without a word.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { spawnBuiltExporter } from '../../harness/built-exporter.js';
import { serveApi, type TestServer } from '../../support/http-server.js';

const OVERVIEW = readFileSync('test/fixtures/rabbitmq-3.10.8/overview.json', 'utf8');

let exporter: ExporterProcess | undefined;
let broker: TestServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await exporter?.stop();
  exporter = undefined;
  await broker?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('refuses a FIFO as password_file on reload, keeps the running configuration, and /-/healthy answers meanwhile', async () => {
  dir = mkdtempSync(join(tmpdir(), 'rmqexp-fifo-'));
  const fifo = join(dir, 'password');
  execFileSync('mkfifo', [fifo]);
  broker = await serveApi({ '/api/overview': OVERVIEW });
  const yaml = `poll:\n  interval: 1s\ntarget:\n  url: ${broker.url}\n`;
  exporter = await startExporter({ configYaml: yaml });

  writeFileSync(exporter.configFile, `${yaml}  password_file: ${fifo}\n`);
  const reload = fetch(`${exporter.url}/-/reload`, { method: 'POST', signal: AbortSignal.timeout(20_000) });
  const healthy = await fetch(`${exporter.url}/-/healthy`, { signal: AbortSignal.timeout(5000) });
  expect(healthy.status).toBe(200);
  const refused = await reload;
  expect(refused.status).toBe(500);
  expect(await refused.text()).toContain(`key "target.password_file": ${fifo} cannot be read (not a regular file but a FIFO)`);
  expect(await exporter.value('rabbitmq_exporter_config_last_reload_successful')).toBe(0);
  expect(await exporter.value('rabbitmq_up')).toBe(1);
}, 60_000);

it('refuses RABBITMQ_PASSWORD_FILE=/dev/zero at start-up with exit 2 and a message naming the variable and the path', async () => {
  const { child } = spawnBuiltExporter(['--web.listen-address', '127.0.0.1:0'], {
    env: { PATH: process.env.PATH ?? '', RABBITMQ_PASSWORD_FILE: '/dev/zero' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  expect(code).toBe(2);
  expect(stderr).toBe(
    'rabbitmq-exporter: environment variable RABBITMQ_PASSWORD_FILE: key "target.password_file": /dev/zero cannot be read (not a regular file but a character device)\n',
  );
}, 30_000);
