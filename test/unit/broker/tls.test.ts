import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementError } from '../../../src/broker/errors.js';
import { ManagementClient, type ClientOptions } from '../../../src/broker/management-client.js';
import { makePki, type Pki } from '../../support/pki.js';

describe('ManagementClient over TLS', () => {
  let dir: string;
  let pki: Pki;
  let server: Server;
  let url: string;
  let lastClientCert: string | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rmqexp-tls-'));
    pki = makePki(dir);
    server = createServer({ cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
      lastClientCert = peer?.subject ? String(peer.subject.CN) : undefined;
      res.setHeader('content-type', 'application/json');
      res.end('{"management_version":"3.10.8"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const options = (tls: ClientOptions['tls']): ClientOptions => ({
    url,
    username: 'monitor',
    password: 's3cret-tls',
    tls,
    timeouts: { connectMs: 2000, headersMs: 2000, bodyMs: 2000, totalMs: 4000 },
    maxResponseBytes: 1 << 20,
    maxConcurrentRequests: 1,
  });

  it('verifies the broker against the configured CA and presents the client certificate', async () => {
    const client = new ManagementClient(options({ ca: pki.ca, cert: pki.clientCert, key: pki.clientKey }));
    try {
      expect(await client.getJson('/api/overview')).toEqual({ management_version: '3.10.8' });
      expect(lastClientCert).toBe('client');
    } finally {
      await client.close();
    }
  });

  it('refuses a broker certificate it cannot verify, with a network error that names the path and no secret', async () => {
    const client = new ManagementClient(options({}));
    try {
      const error = await client.getJson('/api/overview').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ManagementError);
      expect((error as ManagementError).kind).toBe('network');
      expect((error as ManagementError).message).toContain('/api/overview');
      expect(String(error)).not.toContain('s3cret-tls');
      expect(JSON.stringify(error)).not.toContain('s3cret-tls');
    } finally {
      await client.close();
    }
  });

  // Issue 24: a request asks the broker with a connection of undici's connector (TLS handshake
  // included) before it builds a pool.
  it('an unverifiable certificate fails the same way on later requests, with no pool built for them', async () => {
    const client = new ManagementClient(options({}));
    try {
      const first = (await client.getJson('/api/overview').catch((e: unknown) => e)) as ManagementError;
      const second = (await client.getJson('/api/overview').catch((e: unknown) => e)) as ManagementError;
      expect(second).toBeInstanceOf(ManagementError);
      expect(second.kind).toBe('network');
      expect(second.message).toBe(first.message);
      expect(client.poolsBuilt).toBe(0);
      expect(client.pooled).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('accepts an unverifiable certificate only with the explicit insecure switch', async () => {
    const client = new ManagementClient(options({ insecureSkipVerify: true }));
    try {
      expect(await client.getJson('/api/overview')).toEqual({ management_version: '3.10.8' });
    } finally {
      await client.close();
    }
  });
});
