// Reloading the configuration in process: what changes, what stays, and that nothing leaks.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { loadConfig } from '../../src/config/load-config.js';
import { Exporter, readConfigFromDisk } from '../../src/exporter.js';
import { ProcessMetrics } from '../../src/pipeline/process-metrics.js';
import { eventually } from '../harness/eventually.js';
import { serveApi, sleep, type TestServer } from '../support/http-server.js';

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
  exporter = new Exporter(loadConfig(flags, {}, COLLECTORS), flags, {}, new ProcessMetrics(), pino({ level: 'silent' }));
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
  expect(await e.reload()).toEqual({ ok: true, changed: false, restartRequired: [] });
  expect(e.targets[0]).toBe(first);

  writeFileSync(file, `${config(brokers[0]!)}poll_interval: 5s\n`);
  const outcome = await e.reload();
  expect(outcome).toMatchObject({ ok: false, error: expect.stringContaining('key "poll_interval": unknown key') });
  expect(e.targets[0]).toBe(first);
  expect(await text(e)).toContain('rabbitmq_exporter_config_last_reload_successful 0');

  writeFileSync(file, config(brokers[0]!));
  expect(await e.reload()).toEqual({ ok: true, changed: false, restartRequired: [] });
  expect(await text(e)).toContain('rabbitmq_exporter_config_last_reload_successful 1');
});

it('replaces a target whose settings changed: the new one polls the new broker, the old one stops', async () => {
  const { file, exporter: e } = start(config(brokers[0]!));
  const first = e.targets[0]!;
  writeFileSync(file, config(brokers[1]!));
  expect(await e.reload()).toEqual({ ok: true, changed: true, restartRequired: [] });
  expect(e.targets[0]).not.toBe(first);
  expect(e.targets[0]!.state.url).toBe(brokers[1]!.url);
  const before = brokers[0]!.requests.length;
  await sleep(2500);
  expect(brokers[0]!.requests.length).toBe(before);
  expect(brokers[1]!.requests.length).toBeGreaterThan(0);
}, 30_000);

// Issue 32: a reload changing only log.level replaced the target with an empty one: rabbitmq_up 0,
// a tenth of the series and /-/ready 503 until the new target's first poll.
it("a replaced target serves the running one's data, rabbitmq_up and readiness until its own polls replace them", async () => {
  const routes: Record<string, string> = { '/api/overview': OVERVIEW };
  const broker = await serveApi(routes);
  try {
    const { file, exporter: e } = start(config(broker));
    const first = e.targets[0]!;
    await eventually(async () => (first.state.up ? true : undefined), 10_000, 'the first poll of the overview');
    const before = await text(e);
    expect(before).toContain('rabbitmq_up 1');
    // The new target's polls of the overview get no answer: what it serves meanwhile is what it inherited.
    routes['/api/overview'] = 'stall';
    writeFileSync(file, config(broker).replace('level: silent', 'level: fatal'));
    expect(await e.reload()).toEqual({ ok: true, changed: true, restartRequired: [] });
    const replacement = e.targets[0]!;
    expect(replacement).not.toBe(first);
    expect(replacement.ready).toBe(true);
    const after = await text(e);
    expect(after).toContain('rabbitmq_up 1');
    const overviewSeries = (t: string) => t.split('\n').filter((line) => line.startsWith('rabbitmq_') && !line.startsWith('rabbitmq_exporter_') && !line.startsWith('rabbitmq_up'));
    expect(overviewSeries(after).length).toBeGreaterThan(10);
    expect(overviewSeries(after)).toEqual(overviewSeries(before));
  } finally {
    await exporter?.stop();
    exporter = undefined;
    await broker.close();
  }
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

// Issue 14: several targets, matched by name on reload.
describe('several targets', () => {
  let third: TestServer;
  beforeAll(async () => {
    third = await serveApi({ '/api/overview': OVERVIEW });
  });
  afterAll(async () => {
    await third.close();
  });

  const entry = (name: string, broker: TestServer, extra = '') => `  - name: ${name}\n    url: ${broker.url}\n    password: pass-of-${name}-7c1\n${extra}`;
  const several = (...entries: string[]) => `log:\n  level: silent\npoll:\n  interval: 1s\ntargets:\n${entries.join('')}`;
  const names = (e: Exporter) => e.targets.map((t) => t.state.name);

  it('keeps unchanged targets running untouched, replaces changed ones, stops removed ones, starts added ones', async () => {
    const { file, exporter: e } = start(several(entry('a', brokers[0]!), entry('b', brokers[1]!)));
    const [a, b] = e.targets;
    writeFileSync(file, several(entry('a', brokers[0]!), entry('b', brokers[1]!)));
    expect(await e.reload()).toEqual({ ok: true, changed: false, restartRequired: [] });
    expect(e.targets[0]).toBe(a);
    expect(e.targets[1]).toBe(b);

    writeFileSync(file, several(entry('a', brokers[0]!), entry('c', third)));
    expect(await e.reload()).toEqual({ ok: true, changed: true, restartRequired: [] });
    expect(names(e)).toEqual(['a', 'c']);
    expect(e.targets[0]).toBe(a);
    await sleep(300);
    const removedBefore = brokers[1]!.requests.length;
    const keptBefore = brokers[0]!.requests.length;
    await sleep(2500);
    expect(brokers[1]!.requests.length).toBe(removedBefore);
    expect(brokers[0]!.requests.length).toBeGreaterThan(keptBefore);
    expect(third.requests.length).toBeGreaterThan(0);

    writeFileSync(file, several(entry('a', brokers[0]!, '    poll:\n      interval: 2s\n'), entry('c', third)));
    expect(await e.reload()).toEqual({ ok: true, changed: true, restartRequired: [] });
    expect(e.targets[0]).not.toBe(a);
    expect(e.targets[0]!.setup.poll.intervalMs).toBe(2000);
  }, 30_000);

  // Issue 24: each of 10,000 targets built and held its own Redactor, the same one for a fleet that logs in alike.
  it('targets made together with the same credentials share one redactor; others have their own', async () => {
    const alike = (name: string) => `  - name: ${name}\n    url: ${brokers[0]!.url}\n    password: shared-secret-9f2\n`;
    const { exporter: e } = start(several(alike('a'), alike('b'), entry('c', brokers[1]!)));
    await e.start();
    const [a, b, c] = e.targets;
    expect(a!.redactor).toBe(b!.redactor);
    expect(c!.redactor).not.toBe(a!.redactor);
    expect(a!.redactor.redact('said shared-secret-9f2')).toBe('said <redacted>');
    expect(c!.redactor.redact('said pass-of-c-7c1, not shared-secret-9f2')).toBe('said <redacted>, not shared-secret-9f2');
  });

  it('/metrics carries the process and reload series, each target its own; with one target, as before', async () => {
    const { file, exporter: e } = start(several(entry('a', brokers[0]!), entry('b', brokers[1]!)));
    const own = (await e.ownMetrics()).body('text').toString();
    expect(own).toContain('rabbitmq_exporter_config_last_reload_successful 1');
    expect(own).toContain('rabbitmq_exporter_build_info{');
    expect(own).toContain('rabbitmq_exporter_scrapes_refused_total 0');
    expect(own).not.toContain('rabbitmq_up');
    const probe = (await e.targets[1]!.store.current()).body('text').toString();
    expect(probe).toContain('rabbitmq_up ');
    expect(probe).not.toContain('rabbitmq_exporter_build_info');
    expect(probe).not.toContain('rabbitmq_exporter_config_last_reload');

    // Down to one target: its snapshot is /metrics again, process series included.
    writeFileSync(file, several(entry('a', brokers[0]!)));
    await e.reload();
    const only = await text(e);
    expect(only).toContain('rabbitmq_exporter_build_info{');
    expect(only).toContain('rabbitmq_exporter_config_last_reload_successful 1');
  }, 30_000);

  it("the log's guard removes every running target's password, and a removed one's no longer matters", async () => {
    const { file, exporter: e } = start(several(entry('a', brokers[0]!), entry('b', brokers[1]!)));
    expect(e.redactor.redact('a=pass-of-a-7c1 b=pass-of-b-7c1')).toBe('a=<redacted> b=<redacted>');
    writeFileSync(file, several(entry('a', brokers[0]!), entry('c', third)));
    await e.reload();
    expect(e.redactor.redact('a=pass-of-a-7c1 c=pass-of-c-7c1')).toBe('a=<redacted> c=<redacted>');
  });

  it('leaves no timer, socket or pool behind after reloads that add, change and remove targets', async () => {
    const { file, exporter: e } = start(several(entry('a', brokers[0]!), entry('b', brokers[1]!)));
    await sleep(1500);
    const resources = () => process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
    const baseline = resources().length;
    for (let i = 1; i <= 10; i++) {
      const changed = entry('b', brokers[i % 2]!, `    collectors:\n      nodes:\n        interval: ${i + 1}s\n`);
      writeFileSync(file, several(entry('a', brokers[0]!), changed, ...(i % 3 === 0 ? [] : [entry(`c${i}`, third)])));
      expect(await e.reload()).toMatchObject({ ok: true, changed: true });
    }
    expect(names(e)).toEqual(['a', 'b', 'c10']);
    writeFileSync(file, several(entry('a', brokers[0]!), entry('b', brokers[1]!)));
    await e.reload();
    expect(names(e)).toEqual(['a', 'b']);
    await sleep(1500);
    // Two targets before and after; allow one request in flight per target at either moment.
    expect(Math.abs(resources().length - baseline)).toBeLessThanOrEqual(4);
  }, 60_000);
});

// Issue 24: a reload changing what only a restart applies answered "configuration reloaded", with
// the success metric at 1 and nothing else saying that part was not applied.
it('says which settings read by a reload wait for a restart, in its outcome and in a metric', async () => {
  const { file, exporter: e } = start(config(brokers[0]!));
  expect(await text(e)).toContain('rabbitmq_exporter_config_restart_required 0');
  writeFileSync(file, `${config(brokers[0]!)}web:\n  listen_address: ":9999"\n  max_connections: 100\n`);
  expect(await e.reload()).toEqual({
    ok: true,
    changed: false,
    restartRequired: ['web.listen_address', 'web.read_timeout, write_timeout, idle_timeout, max_concurrent_scrapes or max_connections'],
  });
  const served = await text(e);
  expect(served).toContain('rabbitmq_exporter_config_restart_required 1');
  expect(served).toContain('rabbitmq_exporter_config_last_reload_successful 1');
  // Written back as it runs: nothing waits for a restart any more.
  writeFileSync(file, config(brokers[0]!));
  expect(await e.reload()).toEqual({ ok: true, changed: false, restartRequired: [] });
  expect(await text(e)).toContain('rabbitmq_exporter_config_restart_required 0');
});

// Issue 24: a reload of an unchanged configuration of 10,000 targets took 15 s to resolve and compare them all.
it('a reload reading what the last one read keeps every target as it is, and still says what waits for a restart', async () => {
  const file = join(dir, 'config.yaml');
  writeFileSync(file, config(brokers[0]!));
  const flags = { help: false, version: false, config: file };
  const e = new Exporter(await readConfigFromDisk(flags, {}), flags, {}, new ProcessMetrics(), pino({ level: 'silent' }));
  exporter = e;
  await e.start();
  const first = e.targets[0];
  const guard = e.redactor;
  expect(await e.reload()).toEqual({ ok: true, changed: false, restartRequired: [] });
  expect(e.targets[0]).toBe(first);
  // The log's guard over every target's credentials is not built again (at 10,000 targets: ~190 ms of a blocked loop).
  expect(e.redactor).toBe(guard);

  writeFileSync(file, `${config(brokers[0]!)}web:\n  listen_address: ":9999"\n`);
  expect(await e.reload()).toEqual({ ok: true, changed: false, restartRequired: ['web.listen_address'] });
  // Read again unchanged: it still differs from what runs.
  expect(await e.reload()).toEqual({ ok: true, changed: false, restartRequired: ['web.listen_address'] });
  expect(e.targets[0]).toBe(first);

  writeFileSync(file, config(brokers[1]!));
  expect(await e.reload()).toEqual({ ok: true, changed: true, restartRequired: [] });
  expect(e.targets[0]).not.toBe(first);
  expect(e.targets[0]!.setup.target.url).toBe(brokers[1]!.url);
  expect(e.redactor).not.toBe(guard);
});
