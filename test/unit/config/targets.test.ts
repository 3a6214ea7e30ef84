// Issue 14: several clusters in one config file; each entry of targets: falls back to the top level.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { redactedConfig } from '../../../src/config/redacted-config.js';
import type { ExporterConfig, TargetSetup } from '../../../src/config/exporter-config.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmqexp-targets-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function write(yaml: string): string {
  const file = join(dir, `config-${++files}.yaml`);
  writeFileSync(file, yaml);
  return file;
}

function load(yaml: string, env: Record<string, string> = {}): ExporterConfig {
  return loadConfig({ config: write(yaml) }, env, COLLECTORS);
}

function problem(yaml: string, env: Record<string, string> = {}): string {
  try {
    load(yaml, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError, but the configuration loaded');
}

function byName(config: ExporterConfig, name: string): TargetSetup {
  const found = config.targets.find((t) => t.target.name === name);
  if (!found) throw new Error(`no target ${name}`);
  return found;
}

const collector = (setup: TargetSetup, name: string) => setup.collectors.find((c) => c.name === name)!;

describe('targets: a list of brokers', () => {
  // Issue 24: each of 10,000 entries held its own copy of the same resolved settings (~5 kB).
  it('entries that set neither poll nor collectors share one array of collector settings; one that sets them has its own', () => {
    const config = load(
      [
        'poll:\n  interval: 20s',
        'collectors:\n  queues:\n    timeout: 7s',
        'targets:',
        '  - name: a\n    url: http://a.example:15672',
        '  - name: b\n    url: http://b.example:15672',
        '  - name: c\n    url: http://c.example:15672\n    collectors:\n      queues:\n        timeout: 3s',
        '  - name: d\n    url: http://d.example:15672\n    poll:\n      interval: 30s',
        '',
      ].join('\n'),
    );
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => byName(config, name));
    expect(b!.collectors).toBe(a!.collectors);
    expect(collector(a!, 'queues').timeoutMs).toBe(7000);
    expect(c!.collectors).not.toBe(a!.collectors);
    expect(collector(c!, 'queues').timeoutMs).toBe(3000);
    expect(d!.collectors).not.toBe(a!.collectors);
    expect(collector(d!, 'queues').intervalMs).toBe(collector(a!, 'queues').intervalMs * 1.5);
  });

  it('without it, the top level is the one target, named default, as before', () => {
    const config = load('target:\n  url: http://one.example:15672\n');
    expect(config.targets).toHaveLength(1);
    expect(config.targets[0]!.target).toBe(config.target);
    expect(config.targets[0]!.target.name).toBe('default');
    expect(config.targets[0]!.collectors).toBe(config.collectors);
    expect(config.targets[0]!.poll).toBe(config.poll);
  });

  it('each entry falls back to the top level: target keys, poll and collectors merged key by key', () => {
    const secret = join(dir, 'billing-secret');
    writeFileSync(secret, 'billing-pass-5d1\n');
    const config = load(`
poll:
  interval: 20s
target:
  username: monitor
  password: top-pass-9a2
  timeouts:
    connect: 2s
collectors:
  queues:
    details: false
targets:
  - name: orders
    url: http://orders.example:15672
  - name: billing
    url: https://billing.example:15671
    password_file: ${secret}
    timeouts:
      request: 10s
    poll:
      interval: 5s
    collectors:
      queues:
        vhosts:
          include: "^billing$"
      shovels:
        enabled: false
`);
    expect(config.targets.map((t) => t.target.name)).toEqual(['orders', 'billing']);
    const orders = byName(config, 'orders');
    const billing = byName(config, 'billing');
    expect(orders.target).toMatchObject({ url: 'http://orders.example:15672', username: 'monitor', password: 'top-pass-9a2' });
    expect(billing.target).toMatchObject({ url: 'https://billing.example:15671', username: 'monitor', password: 'billing-pass-5d1', passwordSource: `file ${secret}` });
    expect(orders.target.timeouts).toEqual({ connectMs: 2000, headersMs: 30_000, bodyMs: 30_000, totalMs: 60_000 });
    expect(billing.target.timeouts).toEqual({ connectMs: 2000, headersMs: 30_000, bodyMs: 30_000, totalMs: 10_000 });
    expect(orders.poll.intervalMs).toBe(20_000);
    expect(billing.poll.intervalMs).toBe(5000);
    // Intervals derive from the entry's own poll.interval.
    expect(collector(orders, 'queues').intervalMs).toBe(40_000);
    expect(collector(billing, 'queues').intervalMs).toBe(10_000);
    expect(collector(orders, 'queues').options).toMatchObject({ details: false, vhosts: {} });
    expect(collector(billing, 'queues').options).toMatchObject({ details: false, vhosts: { include: '^billing$' } });
    expect(collector(orders, 'shovels').enabled).toBe(true);
    expect(collector(billing, 'shovels').enabled).toBe(false);
  });

  it("an entry's own credentials replace the top level's together: password, password file, or a URL holding them", () => {
    const config = load(`
target:
  username: monitor
  password: top-pass-9a2
targets:
  - name: a
    url: http://u%40corp:url-pass-1@a.example:15672
  - name: b
    url: http://b.example:15672
    password: own-pass-22
`);
    expect(byName(config, 'a').target).toMatchObject({ url: 'http://a.example:15672', username: 'u@corp', password: 'url-pass-1', passwordSource: 'url' });
    expect(byName(config, 'b').target).toMatchObject({ username: 'monitor', password: 'own-pass-22', passwordSource: 'config file' });
  });

  it('the environment sets the top level, which entries without their own value use', () => {
    const config = load('targets:\n  - name: a\n  - name: b\n    password: own-pass-22\n', { RABBITMQ_URL: 'http://env.example:15672', RABBITMQ_PASSWORD: 'env-pass-31' });
    expect(byName(config, 'a').target).toMatchObject({ url: 'http://env.example:15672', password: 'env-pass-31', passwordSource: 'environment variable RABBITMQ_PASSWORD' });
    expect(byName(config, 'b').target).toMatchObject({ url: 'http://env.example:15672', password: 'own-pass-22', passwordSource: 'config file' });
  });

  it('the start-up log lists every target without a password', () => {
    const config = load(`
target:
  password: top-pass-9a2
targets:
  - name: a
  - name: b
    password: own-pass-22
    collectors:
      nodes:
        rates: false
`);
    const text = JSON.stringify(redactedConfig(config));
    expect(text).not.toContain('top-pass-9a2');
    expect(text).not.toContain('own-pass-22');
    const listed = redactedConfig(config).targets as Record<string, unknown>[];
    expect(listed.map((t) => [t.name, t.password])).toEqual([
      ['a', '<redacted>'],
      ['b', '<redacted>'],
    ]);
    expect(listed[0]).not.toHaveProperty('collectors');
    expect(listed[1]).toHaveProperty('collectors');
  });
});

describe('targets: errors name the entry and its key', () => {
  const file = () => join(dir, `config-${files}.yaml`);

  it('a bad value set by an entry', () => {
    const message = problem('targets:\n  - name: a\n  - name: b\n    url: ftp://user:hunter2-secret@b.example\n');
    expect(message).toBe(`invalid configuration:\n  config file ${file()}: key "targets[1].url": must be an http:// or https:// URL, e.g. http://localhost:15672`);
    expect(message).not.toContain('hunter2');
    expect(problem('targets:\n  - name: a\n    poll:\n      interval: 10ms\n')).toContain(`key "targets[0].poll.interval": must be at least 1s`);
    expect(problem('targets:\n  - name: a\n    collectors:\n      nodes:\n        interval: 0s\n')).toContain('key "targets[0].collectors.nodes.interval": must be longer than 0');
    expect(problem('targets:\n  - name: a\n    collectors:\n      overview:\n        enabled: false\n')).toContain('key "targets[0].collectors.overview.enabled": the overview collector cannot be disabled');
  });

  it('unknown keys, in the entry and in its collectors', () => {
    expect(problem('targets:\n  - name: a\n    passwrd: x\n')).toBe(`invalid configuration:\n  config file ${file()}: key "targets[0].passwrd": unknown key (did you mean "password"?)`);
    expect(problem('targets:\n  - name: a\n    collectors:\n      queuez: {}\n')).toContain('key "targets[0].collectors.queuez": unknown key (did you mean "queues"?) (known collectors: overview, nodes');
    expect(problem('targets:\n  - name: a\n    collectors:\n      nodes:\n        ratez: true\n')).toContain('key "targets[0].collectors.nodes.ratez": unknown key');
  });

  it('names: present, unique, usable in a URL and a label', () => {
    expect(problem('targets:\n  - url: http://a.example:15672\n')).toContain('key "targets[0].name": ');
    expect(problem('targets:\n  - name: a\n  - name: b\n  - name: a\n')).toContain('key "targets[2].name": "a" is also the name of targets[0]: names must be unique');
    expect(problem('targets:\n  - name: "a b&c"\n')).toContain('key "targets[0].name": must be 1 to 63 letters, digits, "_", "." or "-", starting with a letter or digit');
    expect(problem('targets: []\n')).toContain('key "targets": must list at least one target, or be left out');
    expect(problem('targets:\n  name: a\n')).toContain('key "targets": ');
  });

  it('credentials: one of password and password_file per entry, and a readable file', () => {
    expect(problem('targets:\n  - name: a\n    password: x\n    password_file: /nonexistent\n')).toContain('keys "targets[0].password" and "targets[0].password_file": set one, not both');
    expect(problem('targets:\n  - name: a\n  - name: b\n    password_file: /nonexistent/secret\n')).toBe(
      `config file ${file()}: key "targets[1].password_file": /nonexistent/secret cannot be read (no such file)`,
    );
    expect(problem('targets:\n  - name: a\n    tls:\n      cert_file: /x.pem\n')).toContain('keys "targets[0].tls.cert_file" and "targets[0].tls.key_file": give both or neither');
  });

  it("the top level's own mistakes are named there, once", () => {
    const message = problem('target:\n  url: nope\ntargets:\n  - name: a\n  - name: b\n');
    expect(message).toBe(`invalid configuration:\n  config file ${file()}: key "target.url": must be an http:// or https:// URL, e.g. http://localhost:15672`);
  });
});
