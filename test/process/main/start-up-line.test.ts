// Issue 30: the start-up line was a 3.1 KB JSON blob of the whole configuration. Now a short line
// at info, as the exporter-toolkit's exporters start, and the configuration (redacted) at debug.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { closedPort } from '../../support/http-server.js';

const PASSWORD = 'start-line-secret-pw';
let dir: string;
let exporter: ExporterProcess | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmqexp-start-line-'));
});
afterEach(async () => {
  await exporter?.stop();
  exporter = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (logs: string) => logs.split('\n').filter((l) => l.startsWith('{')).map((l) => ({ text: l, json: JSON.parse(l) as Record<string, unknown> }));

it('logs one short start-up line (version, revision, addresses, targets, files) and the configuration only at debug, no secret in either', async () => {
  const broker = await closedPort();
  const passwordFile = join(dir, 'password');
  writeFileSync(passwordFile, `${PASSWORD}-from-file\n`);
  const yaml = `targets:\n  - name: a\n    url: http://127.0.0.1:${broker}\n    password: ${PASSWORD}\n  - name: b\n    url: http://monitor:${PASSWORD}-in-url@127.0.0.1:${broker}\n  - name: c\n    url: http://127.0.0.1:${broker}\n    password_file: ${passwordFile}\n`;

  exporter = await startExporter({ configYaml: yaml, args: ['--log.level', 'debug'] });
  const logged = lines(exporter.logs());
  const starting = logged.filter((l) => l.json.msg === 'starting');
  expect(starting).toHaveLength(1);
  const line = starting[0]!;
  expect(Object.keys(line.json).sort()).toEqual(
    ['branch', 'config_file', 'level', 'listen_addresses', 'msg', 'node', 'revision', 'service', 'targets', 'time', 'version', 'web_config_file'].sort(),
  );
  // The address as given (the harness's 127.0.0.1:0); the port the system chose is in the serving /metrics line.
  expect(line.json).toMatchObject({ level: 'info', targets: 3, config_file: exporter.configFile, web_config_file: null, node: process.version, listen_addresses: ['127.0.0.1:0'] });
  expect(line.json.version).toMatch(/^\d+\.\d+\.\d+/);
  // Short whatever the configuration: no URL, user or setting of any target in it.
  expect(Buffer.byteLength(line.text)).toBeLessThan(400);
  expect(line.text).not.toContain(`127.0.0.1:${broker}`);

  const details = logged.filter((l) => l.json.msg === 'configuration in force');
  expect(details).toHaveLength(1);
  expect(details[0]!.json.level).toBe('debug');
  const config = details[0]!.json.config as { targets: { name: string; password: string }[]; listenAddresses: string[] };
  expect(config.targets.map((t) => [t.name, t.password])).toEqual([['a', '<redacted>'], ['b', '<redacted>'], ['c', '<redacted>']]);
  expect(config.listenAddresses).toEqual(line.json.listen_addresses);
  expect(exporter.logs()).not.toContain(PASSWORD);
  await exporter.stop();

  // At the default level (info) the details are not written at all.
  exporter = await startExporter({ configYaml: yaml });
  const atInfo = lines(exporter.logs());
  expect(atInfo.filter((l) => l.json.msg === 'starting')).toHaveLength(1);
  expect(atInfo.filter((l) => l.json.msg === 'configuration in force')).toHaveLength(0);
  expect(exporter.logs()).not.toContain(PASSWORD);
}, 60_000);
