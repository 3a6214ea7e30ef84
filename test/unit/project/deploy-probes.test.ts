// Issue 30: /-/ready asked for the web config's password, so the shipped readiness probe failed as
// soon as basic auth was on. The shipped probes, read from deploy/, asked of the built exporter
// with basic auth (and with TLS, as kubelet asks over HTTPS: no certificate check, no credentials).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { Agent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { UNAUTHENTICATED_PATHS } from '../../../src/server/web-guard.js';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { closedPort } from '../../support/http-server.js';
import { makePki } from '../../support/pki.js';

interface HttpGet {
  path: string;
  port: string | number;
  scheme?: string;
  httpHeaders?: unknown[];
}
interface Probe {
  httpGet?: HttpGet;
  exec?: unknown;
  tcpSocket?: unknown;
}
interface Container {
  name: string;
  ports?: { name?: string; containerPort: number }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
}

/** Every probe of every workload the deploy/ manifests ship. */
const PROBES = ['deploy/deployment.yaml', 'deploy/sharded/statefulset.yaml'].flatMap((file) =>
  parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as { kind?: string; spec?: { template?: { spec?: { containers?: Container[] } } } })
    .filter((doc) => doc.kind === 'Deployment' || doc.kind === 'StatefulSet')
    .flatMap((doc) => doc.spec?.template?.spec?.containers ?? [])
    .flatMap((container) =>
      (['livenessProbe', 'readinessProbe', 'startupProbe'] as const)
        .filter((kind) => container[kind] !== undefined)
        .map((kind) => ({ where: `${file} ${container.name} ${kind}`, probe: container[kind] as Probe, container })),
    ),
);

/** kubelet's success: a status from 200 to 399. It sends its own User-Agent and Accept, and no credentials. */
const KUBELET_HEADERS = { 'user-agent': 'kube-probe/1.27', accept: '*/*' };

describe('the shipped probes', () => {
  it('are HTTP GETs of paths served without credentials, on a named port of the container, with no headers', () => {
    expect(PROBES.map((p) => p.where)).toEqual([
      'deploy/deployment.yaml exporter livenessProbe',
      'deploy/deployment.yaml exporter readinessProbe',
      'deploy/sharded/statefulset.yaml exporter livenessProbe',
      'deploy/sharded/statefulset.yaml exporter readinessProbe',
    ]);
    for (const { where, probe, container } of PROBES) {
      const get = probe.httpGet;
      expect(get, where).toBeDefined();
      expect(UNAUTHENTICATED_PATHS.has(get!.path), `${where}: ${get!.path}`).toBe(true);
      expect(get!.httpHeaders, `${where}: no password in the pod spec`).toBeUndefined();
      expect(container.ports?.map((p) => p.name), where).toContain(get!.port);
    }
  });
});

describe('the built exporter with basic auth on answers them as kubelet asks', () => {
  let dir: string;
  let exporter: ExporterProcess | undefined;
  const agents: Agent[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rmqexp-probes-'));
    makePki(dir);
  });
  afterEach(async () => {
    await exporter?.stop();
    exporter = undefined;
  });
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const users = `basic_auth_users:\n  prometheus: ${bcrypt.hashSync('scrape-pw', 4)}\n`;
  const authorization = `Basic ${Buffer.from('prometheus:scrape-pw').toString('base64')}`;

  for (const tls of [false, true]) {
    it(tls ? 'over HTTPS (scheme: HTTPS; kubelet checks no certificate)' : 'over HTTP, as shipped', async () => {
      const webConfig = join(dir, `web-${tls}.yml`);
      writeFileSync(webConfig, `${tls ? 'tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n' : ''}${users}`);
      const broker = await closedPort();
      exporter = await startExporter({
        configYaml: `target:\n  url: http://127.0.0.1:${broker}\n`,
        args: ['--web.config.file', webConfig],
        // Over HTTP the helper's own wait for /-/ready sends no password: it passes only if /-/ready is open.
        readyCheck: tls ? { ca: readFileSync(join(dir, 'ca.pem')), authorization } : undefined,
      });
      const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
      agents.push(dispatcher);
      const base = exporter.url;
      for (const { where, probe } of PROBES) {
        const { statusCode, body } = await request(`${base}${probe.httpGet!.path}`, { headers: KUBELET_HEADERS, dispatcher });
        await body.dump();
        expect(statusCode, where).toBeGreaterThanOrEqual(200);
        expect(statusCode, where).toBeLessThan(400);
      }
      // The password is still wanted everywhere else.
      const { statusCode, body } = await request(`${base}/metrics`, { headers: KUBELET_HEADERS, dispatcher });
      await body.dump();
      expect(statusCode).toBe(401);
    }, 60_000);
  }
});
