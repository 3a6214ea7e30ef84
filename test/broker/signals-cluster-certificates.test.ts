// Issue 26, signal 6 (certificate expiry) against a real broker of the project's version with a
// TLS AMQP listener whose certificate, from a throw-away CA made with openssl, expires in a day.
// The expected dates are openssl's own reading of the files (`openssl x509 -enddate`), and the
// listener's port and protocol what /api/overview lists.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ManagementClient } from '../../src/broker/management-client.js';
import { certificatesCollector } from '../../src/collectors/certificates/collector.js';
import { DEFAULT_PLUGINS, startBroker, type BrokerHandle } from '../harness/broker/broker.js';
import { pickPorts } from '../harness/broker/node-process.js';
import { eventually } from '../harness/eventually.js';
import { makePki } from '../support/pki.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { managementApi } from './support/management-api.js';
import { describeWithBroker } from './support/with-broker.js';

const EXPIRY = 'rabbitmq_certificate_expiry_timestamp_seconds';

/** notAfter of a PEM file's (first) certificate, as openssl reads it, in Unix seconds. */
function opensslNotAfter(file: string): number {
  const out = execFileSync('openssl', ['x509', '-noout', '-enddate', '-in', file], { encoding: 'utf8' });
  const text = /notAfter=(.*)/.exec(out)?.[1];
  if (!text) throw new Error(`openssl printed no notAfter: ${out}`);
  return Date.parse(text) / 1000;
}

describeWithBroker('signal 6: certificate expiry of a TLS listener', (shared) => {
  let node: BrokerHandle | undefined;
  let client: ManagementClient;
  let pkiDir: string;
  let tlsPort: number;

  beforeAll(async () => {
    // Under the host's temp directory: the chroot versions see it at the same path.
    pkiDir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'sig-certs-'));
    makePki(pkiDir);
    fs.chmodSync(pkiDir, 0o755);
    for (const f of fs.readdirSync(pkiDir)) fs.chmodSync(path.join(pkiDir, f), 0o644);
    // The node cannot report a port 0 listener: a port picked as the node's own are, below the
    // ephemeral range that outgoing connections take theirs from.
    [tlsPort] = (await pickPorts(1)) as [number];
    node = await startBroker({
      version: shared.brokerVersion,
      nodeNamePrefix: 'sigtls',
      plugins: DEFAULT_PLUGINS,
      extraConfig: [
        `listeners.ssl.default = 127.0.0.1:${tlsPort}`,
        `ssl_options.cacertfile = ${path.join(pkiDir, 'ca.pem')}`,
        `ssl_options.certfile = ${path.join(pkiDir, 'server.pem')}`,
        `ssl_options.keyfile = ${path.join(pkiDir, 'server.key')}`,
      ],
    });
    client = clientFor(node);
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    await node?.stop();
    if (pkiDir) fs.rmSync(pkiDir, { recursive: true, force: true });
  }, 60_000);

  it('serves the listener\'s certificate and CA expiry dates as openssl reads them', async () => {
    const b = node!;
    // The management API answers before the node has listed its listeners (4.0.5 served `[]` at
    // first in CI): the TLS listener is read once /api/overview lists it.
    const tls = await eventually(async () => {
      const listeners = (await managementApi(b)<{ listeners: { node: string; protocol: string; port: number; ip_address: string }[] }>('GET', '/api/overview')).listeners;
      return listeners.find((l) => l.port === tlsPort);
    }, 30_000, `the TLS listener on port ${tlsPort} in /api/overview`);

    const r = await runCollector(certificatesCollector, { api: client });
    const at = (file: string) => r.value(EXPIRY, { node: b.nodeName, protocol: tls.protocol, interface: '127.0.0.1', port: String(tlsPort), file });
    expect(at('certfile'), r.text).toBe(opensslNotAfter(path.join(pkiDir, 'server.pem')));
    expect(at('cacertfile')).toBe(opensslNotAfter(path.join(pkiDir, 'ca.pem')));
    // Made with -days 1: it expires within a day and a minute of now.
    expect(at('certfile')! - Date.now() / 1000).toBeLessThan(86_460);
    // Only the TLS listener has a certificate file.
    expect(r.value('rabbitmq_certificate_listeners', { node: b.nodeName })).toBe(1);
    expect(r.family(EXPIRY)).toHaveLength(2);
  });

  it('a broker without TLS listeners: no dates, 0 listeners', async () => {
    const other = clientFor(shared);
    try {
      const r = await runCollector(certificatesCollector, { api: other });
      expect(r.family(EXPIRY)).toHaveLength(0);
      expect(r.value('rabbitmq_certificate_listeners', { node: shared.nodeName })).toBe(0);
    } finally {
      await other.close();
    }
  });
});
