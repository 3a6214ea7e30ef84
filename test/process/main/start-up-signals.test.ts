// Issue 24, item 5: a SIGHUP during start-up killed the process (exit 129: Node's default for
// SIGHUP), though the docs say SIGHUP never kills it; with 10,000 targets the window lasted half a
// minute. The handlers are installed first thing; a SIGHUP before the exporter runs is applied
// once it does, and a SIGTERM during start-up exits at once, with 0. The signals are sent when the
// exporter logs "starting" (its configuration read, its targets not yet made): a configuration of
// 3,000 targets keeps it in start-up for a while after that line.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { spawnBuiltExporter } from '../../harness/built-exporter.js';
import { eventually } from '../../harness/eventually.js';
import { serveApi, type TestServer } from '../../support/http-server.js';

const OVERVIEW = readFileSync('test/fixtures/rabbitmq-3.10.8/overview.json', 'utf8');
const UNREACHABLE = 3000;

let broker: TestServer | undefined;
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await broker?.close();
});

/** A fleet: the broker, and thousands of targets on a port nothing listens on (each poll fails at once). */
function fleetYaml(url: string): string {
  const entries = Array.from({ length: UNREACHABLE }, (_, i) => `  - name: down-${i}\n    url: http://127.0.0.1:1\n`);
  return `poll:\n  interval: 30s\ntargets:\n  - name: up\n    url: ${url}\n${entries.join('')}`;
}

function onStartingLine(child: ChildProcess, then: () => void): void {
  let seen = '';
  const listener = (chunk: Buffer) => {
    seen += chunk.toString();
    if (seen.includes('"msg":"starting"')) {
      child.stdout?.off('data', listener);
      then();
    }
  };
  child.stdout?.on('data', listener);
}

/** The built exporter on this configuration, its output gathered. */
function spawnExporter(yaml: string): { child: ChildProcess; output: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'rmqexp-signals-'));
  dirs.push(dir);
  const config = join(dir, 'config.yaml');
  writeFileSync(config, yaml);
  const { child } = spawnBuiltExporter(['--config', config, '--web.listen-address', '127.0.0.1:0'], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

it('keeps running after a SIGHUP during start-up, and applies it once running', async () => {
  broker = await serveApi({ '/api/overview': OVERVIEW });
  const { child, output } = spawnExporter(fleetYaml(broker.url));
  onStartingLine(child, () => child.kill('SIGHUP'));
  await eventually(async () => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited (${child.exitCode ?? child.signalCode}):\n${output().slice(-2000)}`);
    return /"msg":"configuration reloaded"/.test(output()) ? true : undefined;
  }, 60_000, 'the queued reload');
  expect(output()).toContain('"signal":"SIGHUP","msg":"reloading the configuration"');
  // Nothing changed: every target was kept as it was.
  expect(output()).toContain('"target_restarted":false');
  expect(child.exitCode).toBe(null);
}, 90_000);

it('exits at once, with 0, on a SIGTERM during start-up', async () => {
  const { child } = spawnExporter(fleetYaml('http://127.0.0.1:1'));
  let sent = 0;
  onStartingLine(child, () => {
    sent = Date.now();
    child.kill('SIGTERM');
  });
  expect(await exited(child)).toBe(0);
  expect(Date.now() - sent).toBeLessThan(2000);
}, 30_000);
