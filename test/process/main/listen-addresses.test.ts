// Issue 30: a repeated --web.listen-address kept only the last. The exporter-toolkit listens on
// each; here the built exporter serves every address alike, with the same TLS and users.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { closedPort } from '../../support/http-server.js';
import { makePki } from '../../support/pki.js';

let dir: string;
let exporter: ExporterProcess | undefined;
let dispatcher: Agent | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmqexp-listen-'));
  makePki(dir);
});
afterEach(async () => {
  await exporter?.stop();
  exporter = undefined;
  await dispatcher?.close();
  dispatcher = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

it('serves /metrics on two addresses given by repeating the flag, each over TLS to the right user only', async () => {
  writeFileSync(join(dir, 'web.yml'), `tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\nbasic_auth_users:\n  prometheus: ${bcrypt.hashSync('scrape-pw', 4)}\n`);
  const ca = readFileSync(join(dir, 'ca.pem'));
  const broker = await closedPort();
  // The helper's flag (127.0.0.1:0) and a second one.
  exporter = await startExporter({
    configYaml: `target:\n  url: http://127.0.0.1:${broker}\n`,
    args: ['--web.config.file', join(dir, 'web.yml'), '--web.listen-address', '127.0.0.1:0'],
    addresses: 2,
    readyCheck: { ca, authorization: basic('prometheus', 'scrape-pw') },
  });
  const [first, second] = exporter.ports;
  expect(first).not.toBe(second);
  dispatcher = new Agent({ connect: { ca } });
  for (const port of [first, second]) {
    const get = (authorization?: string) => undiciFetch(`https://127.0.0.1:${port}/metrics`, { dispatcher, headers: authorization ? { authorization } : {} });
    const ok = await get(basic('prometheus', 'scrape-pw'));
    expect(ok.status, `port ${port}`).toBe(200);
    expect(await ok.text()).toContain('rabbitmq_up');
    expect((await get()).status, `port ${port} without a password`).toBe(401);
    expect((await get(basic('prometheus', 'wrong'))).status, `port ${port} with a wrong password`).toBe(401);
    // Plain HTTP on either TLS port gets the TLS port's 400.
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(400);
  }
  const serving = exporter.logs().split('\n').filter((l) => l.includes('"msg":"serving /metrics"')).map((l) => JSON.parse(l) as { port: number; protocol: string });
  expect(serving.map((l) => [l.port, l.protocol])).toEqual([[first, 'https'], [second, 'https']]);
}, 60_000);

it('web.listen_address as a list in the config file; one address that cannot be listened on stops the start, naming it', async () => {
  const broker = await closedPort();
  // No flag: the file's list alone (the ready check asks the first address); port 0 twice is two ports.
  exporter = await startExporter({
    configYaml: `web:\n  listen_address: ["127.0.0.1:0", "127.0.0.1:0"]\ntarget:\n  url: http://127.0.0.1:${broker}\n`,
    listenAddressConfigured: true,
    addresses: 2,
  });
  const [a, b] = exporter.ports;
  expect(a).not.toBe(b);
  for (const port of [a, b]) expect((await fetch(`http://127.0.0.1:${port}/-/healthy`)).status, `port ${port}`).toBe(200);
  // A second exporter on a free address (the helper's flag) and a taken one, the first's: it does not start.
  const refused = await startExporter({ configYaml: `target:\n  url: http://127.0.0.1:${broker}\n`, args: ['--web.listen-address', `127.0.0.1:${a}`], addresses: 2 }).then(
    () => 'started',
    (error: Error) => error.message,
  );
  expect(refused).toMatch(/^exporter exited with 1:/);
  const fatal = JSON.parse(refused.split('\n').find((l) => l.includes('"msg":"cannot listen"')) ?? '{}') as { err?: { message: string } };
  expect(fatal.err?.message).toBe(`listen EADDRINUSE: address already in use 127.0.0.1:${a}`);
}, 60_000);
