// The container's HEALTHCHECK (src/server/healthcheck.ts) against the built exporter (npm test builds
// dist/ first), run as real processes: it must find the port the exporter was given, whatever it is.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { check, decodeAddress, exporterPids } from '../../../src/server/healthcheck.js';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { spawnBuiltExporter } from '../../harness/built-exporter.js';
import { listeningPorts } from '../../harness/listening.js';
import { makePki } from '../../support/pki.js';

// No broker is needed: /-/healthy answers while the process runs; port 1 refuses at once.
const NO_BROKER = 'target:\n  url: http://127.0.0.1:1\n';

/** The pid of the exporter started with `configFile` (its temp dir is unique to it). */
function pidOf(configFile: string): number {
  const pids = exporterPids().filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(configFile));
  expect(pids).toHaveLength(1);
  return pids[0] as number;
}

const running: ExporterProcess[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.stop()));
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

describe('the container health check follows the port the exporter listens on', () => {
  it('finds a port given by --web.listen-address, and the CLI exits 0; 1 once the exporter is gone', async () => {
    const exporter = await startExporter({ configYaml: NO_BROKER });
    running.push(exporter);
    const pid = pidOf(exporter.configFile);
    const port = new URL(exporter.url).port;
    expect(port).not.toBe('9419');
    expect(await check([pid])).toEqual({ healthy: true, report: `http://127.0.0.1:${port}/-/healthy: 200` });

    const cli = spawnSync(process.execPath, ['dist/src/server/healthcheck.js', String(pid)], { encoding: 'utf8', timeout: 30_000 });
    expect(cli.stdout).toBe(`http://127.0.0.1:${port}/-/healthy: 200\n`);
    expect(cli.status).toBe(0);

    await exporter.stop();
    const after = spawnSync(process.execPath, ['dist/src/server/healthcheck.js', String(pid)], { encoding: 'utf8', timeout: 30_000 });
    expect(after.stderr).toBe(`pid ${pid}: cannot read its sockets (ENOENT)\n`);
    expect(after.status).toBe(1);
  }, 60_000);

  it("finds a port given only by the config file's web.listen_address, on every interface as in the image", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmqexp-health-'));
    const configFile = join(dir, 'config.yaml');
    // ":0" listens on :: (or 0.0.0.0 without IPv6), on a port it logs: the check connects to loopback.
    writeFileSync(configFile, `web:\n  listen_address: ":0"\n${NO_BROKER}`);
    const { child } = spawnBuiltExporter(['--config', configFile], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const [port] = await listeningPorts(child, { name: 'exporter', timeoutMs: 20_000 });
    expect(await check([child.pid as number])).toEqual({ healthy: true, report: `http://127.0.0.1:${port}/-/healthy: 200` });
  }, 60_000);

  it('speaks HTTPS to a listener with tls_server_config (the certificate is not the question)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmqexp-health-tls-'));
    const pki = makePki(dir);
    const webConfig = join(dir, 'web.yml');
    writeFileSync(webConfig, `tls_server_config:\n  cert_file: ${join(dir, 'server.pem')}\n  key_file: ${join(dir, 'server.key')}\n`);
    const exporter = await startExporter({ configYaml: NO_BROKER, args: ['--web.config.file', webConfig], readyCheck: { ca: pki.ca } });
    running.push(exporter);
    const port = new URL(exporter.url).port;
    // Plain HTTP gets 400 from the TLS listener; HTTPS answers.
    expect(await check([pidOf(exporter.configFile)])).toEqual({ healthy: true, report: `https://127.0.0.1:${port}/-/healthy: 200` });
  }, 60_000);

  it('is unhealthy when /-/healthy answers something else than 200, or nothing listens, or no exporter runs', async () => {
    // Processes of their own: one answering 503 on a port it prints, one listening nowhere.
    const serve503 = "const s = require('node:http').createServer((q, r) => r.writeHead(503).end()); s.listen(0, '127.0.0.1', () => console.log(s.address().port));";
    const answering = spawn(process.execPath, ['-e', serve503], { stdio: ['ignore', 'pipe', 'inherit'] });
    const silent = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    children.push(answering, silent);
    const port = await new Promise<string>((resolve) => answering.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
    expect(await check([answering.pid as number])).toEqual({ healthy: false, report: `http://127.0.0.1:${port}/-/healthy: 503` });
    expect(await check([silent.pid as number])).toEqual({ healthy: false, report: `pid ${silent.pid}: listens on no TCP port` });
    expect(await check([])).toEqual({ healthy: false, report: 'no process runs dist/src/main.js' });
  }, 60_000);
});

describe('/proc/net/tcp addresses', () => {
  it('decodes IPv4 and IPv6 words in the machine byte order', () => {
    expect(decodeAddress('0100007F', 'LE')).toBe('127.0.0.1');
    expect(decodeAddress('7F000001', 'BE')).toBe('127.0.0.1');
    expect(decodeAddress('00000000', 'LE')).toBe('0.0.0.0');
    expect(decodeAddress('00000000000000000000000000000000', 'LE')).toBe('::');
    expect(decodeAddress('00000000000000000000000001000000', 'LE')).toBe('::1');
    expect(decodeAddress('0000000000000000FFFF00000100007F', 'LE')).toBe('127.0.0.1');
    expect(decodeAddress('000080FE00000000FF000002FE030004', 'LE')).toBe('fe80::200:ff:400:3fe');
  });
});
