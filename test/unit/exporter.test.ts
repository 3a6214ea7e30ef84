// Reloading the configuration in process: what changes, what stays, and that nothing leaks.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { Exporter } from '../../src/exporter.js';
import { ProcessMetrics } from '../../src/self/process-metrics.js';
import { serveApi, sleep, type TestServer } from './support/http-server.js';

const OVERVIEW = readFileSync('test/fixtures/rabbitmq-3.10.8/overview.json', 'utf8');

let dir: string;
let brokers: TestServer[] = [];
let exporter: Exporter | undefined;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rmqexp-reload-'));
  brokers = [await serveApi({ '/api/overview': OVERVIEW }), await serveApi({ '/api/overview': OVERVIEW })];
});
afterEach(async () => {
  await exporter?.stop();
  exporter = undefined;
});
afterAll(async () => {
  await Promise.all(brokers.map((b) => b.close()));
  rmSync(dir, { recursive: true, force: true });
});

function start(yaml: string): { file: string; exporter: Exporter } {
  const file = join(dir, 'config.yaml');
  writeFileSync(file, yaml);
  const flags = { help: false, version: false, config: file };
  exporter = new Exporter(loadConfig(flags, {}), flags, {}, new ProcessMetrics(), pino({ level: 'silent' }));
  exporter.start();
  return { file, exporter };
}

const config = (broker: TestServer, extra = '') => `log:\n  level: silent\npoll:\n  interval: 1s\ntarget:\n  url: ${broker.url}\n${extra}`;

async function text(e: Exporter): Promise<string> {
  return (await e.targets[0]!.store.current()).body('text').toString();
}

it('keeps the running target when the new configuration is the same, or cannot be used', async () => {
  const { file, exporter: e } = start(config(brokers[0]!));
  const first = e.targets[0];
  expect(await e.reload()).toEqual({ ok: true, changed: false });
  expect(e.targets[0]).toBe(first);

  writeFileSync(file, `${config(brokers[0]!)}poll_interval: 5s\n`);
  const outcome = await e.reload();
  expect(outcome).toMatchObject({ ok: false, error: expect.stringContaining('key "poll_interval": unknown key') });
  expect(e.targets[0]).toBe(first);
  expect(await text(e)).toContain('rabbitmq_exporter_config_last_reload_successful 0');

  writeFileSync(file, config(brokers[0]!));
  expect(await e.reload()).toEqual({ ok: true, changed: false });
  expect(await text(e)).toContain('rabbitmq_exporter_config_last_reload_successful 1');
});

it('replaces a target whose settings changed: the new one polls the new broker, the old one stops', async () => {
  const { file, exporter: e } = start(config(brokers[0]!));
  const first = e.targets[0]!;
  writeFileSync(file, config(brokers[1]!));
  expect(await e.reload()).toEqual({ ok: true, changed: true });
  expect(e.targets[0]).not.toBe(first);
  expect(e.targets[0]!.state.url).toBe(brokers[1]!.url);
  const before = brokers[0]!.requests.length;
  await sleep(2500);
  expect(brokers[0]!.requests.length).toBe(before);
  expect(brokers[1]!.requests.length).toBeGreaterThan(0);
}, 30_000);

it('leaves no timer, socket or pool behind after many reloads that change the target', async () => {
  const { file, exporter: e } = start(config(brokers[0]!));
  await sleep(1500);
  const resources = () => process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').sort().join(',');
  const count = (list: string) => list.split(',').filter(Boolean).length;
  const baseline = resources();
  for (let i = 1; i <= 10; i++) {
    writeFileSync(file, config(brokers[i % 2]!, `collectors:\n  nodes:\n    interval: ${i + 1}s\n`));
    expect(await e.reload()).toMatchObject({ ok: true, changed: true });
  }
  writeFileSync(file, config(brokers[0]!));
  await e.reload();
  await sleep(1500);
  // The same kinds and numbers of handles as before the reloads (polls come and go, so allow the
  // one request that may be in flight at either moment).
  expect(Math.abs(count(resources()) - count(baseline))).toBeLessThanOrEqual(2);
}, 60_000);
