// The built exporter with --web.config.file, as an operator runs it: TLS on the listener, basic
// auth, and a web config and certificates that change while it runs.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import bcrypt from 'bcryptjs';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { eventually } from '../../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { closedPort } from '../../support/http-server.js';
import { makePki } from '../../support/pki.js';

let root: string;
/** Each test's own directory, with its own throw-away PKI and web config. */
let dir: string;
let exporter: ExporterProcess | undefined;
const agents: Agent[] = [];
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rmqexp-web-'));
});
beforeEach((context) => {
  dir = join(root, String(context.task.id));
  mkdirSync(dir);
  makePki(dir);
});
afterEach(async () => {
  await exporter?.stop();
  exporter = undefined;
});
afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  rmSync(root, { recursive: true, force: true });
});

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function agent(ca: Buffer, client?: { cert: Buffer; key: Buffer }): Agent {
  const a = new Agent({ connect: { ca, ...client } });
  agents.push(a);
  return a;
}

/** The CN of the certificate the exporter presents now. */
function servedCn(url: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false }, () => {
      resolve(String(socket.getPeerCertificate().subject.CN));
      socket.end();
    });
    socket.on('error', reject);
  });
}

async function start(webConfig: string, clientCertificate = false): Promise<ExporterProcess> {
  const path = join(dir, 'web.yml');
  writeFileSync(path, webConfig);
  const broker = await closedPort();
  return startExporter({
    configYaml: `target:\n  url: http://127.0.0.1:${broker}\n`,
    args: ['--web.config.file', path],
    readyCheck: {
      ca: readFileSync(join(dir, 'ca.pem')),
      authorization: basic('prometheus', 'scrape-pw'),
      ...(clientCertificate ? { cert: readFileSync(join(dir, 'client.pem')), key: readFileSync(join(dir, 'client.key')) } : {}),
    },
  });
}

const HASH = bcrypt.hashSync('scrape-pw', 4);
const TLS = 'tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n';

it('serves /metrics over TLS to the right user only, /-/healthy to anyone, and a 400 saying why over plain HTTP', async () => {
  exporter = await start(`${TLS}basic_auth_users:\n  prometheus: ${HASH}\n`);
  expect(exporter.url.startsWith('https://')).toBe(true);
  const dispatcher = agent(readFileSync(join(dir, 'ca.pem')));
  const get = (path: string, authorization?: string) => undiciFetch(`${exporter!.url}${path}`, { dispatcher, headers: authorization ? { authorization } : {} });
  const ok = await get('/metrics', basic('prometheus', 'scrape-pw'));
  expect(ok.status).toBe(200);
  expect(await ok.text()).toContain('rabbitmq_up 0');
  for (const auth of [undefined, basic('prometheus', 'nope'), basic('admin', 'scrape-pw')]) expect((await get('/metrics', auth)).status).toBe(401);
  expect((await get('/')).status).toBe(401);
  expect((await get('/-/healthy')).status).toBe(200);
  const plain = await fetch(`${exporter.url.replace('https:', 'http:')}/-/healthy`);
  expect(plain.status).toBe(400);
  expect(await plain.text()).toBe('Client sent an HTTP request to an HTTPS server.\n');
}, 60_000);

it('rotates its certificate and its users without a restart, and keeps the old web config when the new one is broken', async () => {
  exporter = await start(`${TLS}basic_auth_users:\n  prometheus: ${HASH}\n`);
  expect(await servedCn(exporter.url)).toBe('server');
  mkdirSync(join(dir, 'next'));
  makePki(join(dir, 'next'), 'rotated');
  // New certificate and key, written over the old files.
  copyFileSync(join(dir, 'next', 'server.key'), join(dir, 'server.key'));
  copyFileSync(join(dir, 'next', 'server.pem'), join(dir, 'server.pem'));
  await eventually(async () => ((await servedCn(exporter!.url)) === 'rotated' ? true : undefined), 20_000, 'the rotated certificate');

  const dispatcher = agent(readFileSync(join(dir, 'next', 'ca.pem')));
  const status = async (user: string, password: string) =>
    (await undiciFetch(`${exporter!.url}/metrics`, { dispatcher, headers: { authorization: basic(user, password) } })).status;
  writeFileSync(join(dir, 'web.yml'), `${TLS}basic_auth_users:\n  grafana: ${bcrypt.hashSync('other-pw', 4)}\n`);
  await eventually(async () => ((await status('grafana', 'other-pw')) === 200 ? true : undefined), 20_000, 'the new user');
  expect(await status('prometheus', 'scrape-pw')).toBe(401);

  writeFileSync(join(dir, 'web.yml'), `${TLS}basic_auth_users:\n  grafana: not-a-hash\n`);
  await eventually(async () => (exporter!.logs().includes('web config not reloaded') ? true : undefined), 20_000, 'the refusal in the log');
  expect(exporter.logs()).toContain('key \\"basic_auth_users.grafana\\": is not a bcrypt hash');
  expect(await status('grafana', 'other-pw')).toBe(200);
  // Issue 24: emptied (or caught half written), the file is refused and auth stays on.
  writeFileSync(join(dir, 'web.yml'), '');
  await eventually(async () => (exporter!.logs().includes('is empty; it would turn TLS and basic auth off') ? true : undefined), 20_000, 'the empty file refused in the log');
  expect((await undiciFetch(`${exporter.url}/metrics`, { dispatcher })).status).toBe(401);
  expect(await status('grafana', 'other-pw')).toBe(200);
}, 90_000);

it('asks for a verified client certificate with RequireAndVerifyClientCert', async () => {
  exporter = await start(`${TLS}  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.pem\n`, true);
  const ca = readFileSync(join(dir, 'ca.pem'));
  const withCert = await undiciFetch(`${exporter.url}/metrics`, { dispatcher: agent(ca, { cert: readFileSync(join(dir, 'client.pem')), key: readFileSync(join(dir, 'client.key')) }) });
  expect(withCert.status).toBe(200);
  await expect(undiciFetch(`${exporter.url}/metrics`, { dispatcher: agent(ca) })).rejects.toThrow();
}, 60_000);

it('refuses to start with a web config it cannot use: exit code 2, the key named', async () => {
  await expect(start('basic_auth_users:\n  prometheus: scrape-pw\n')).rejects.toThrow(/exited with 2[\s\S]*key "basic_auth_users.prometheus": is not a bcrypt hash/);
}, 60_000);
