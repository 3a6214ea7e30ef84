// Authentication: bearer tokens, and the explicit local-only mode without it.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { createAuthenticator } from '../src/auth.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { startStorefront } from '../src/server.js';
import { http, startTestServer, TEST_SCRYPT, toJson, transaction, type TestServer } from './support.js';

const TOKEN = 'test-token-0123456789abcdef';
const OTHER = 'another-token-0123456789abcdef';

describe('configuration', () => {
  it('refuses to start with no token and no explicit no-auth setting, saying what to set', () => {
    expect(() => loadConfig({})).toThrow(ConfigError);
    expect(() => loadConfig({})).toThrow(/STOREFRONT_TOKENS_FILE .* STOREFRONT_TOKENS, or STOREFRONT_AUTH=none-local-only/);
  });

  it('STOREFRONT_AUTH=none-local-only binds 127.0.0.1, and refuses a non-loopback STOREFRONT_HOST', () => {
    expect(loadConfig({ STOREFRONT_AUTH: 'none-local-only' })).toMatchObject({ host: '127.0.0.1', auth: { kind: 'none-local-only' } });
    expect(loadConfig({ STOREFRONT_AUTH: 'none-local-only', STOREFRONT_HOST: '::1' })).toMatchObject({ host: '::1' });
    expect(() => loadConfig({ STOREFRONT_AUTH: 'none-local-only', STOREFRONT_HOST: '0.0.0.0' })).toThrow('STOREFRONT_HOST is "0.0.0.0"');
    expect(() => loadConfig({ STOREFRONT_AUTH: 'none-local-only', STOREFRONT_TOKENS: TOKEN })).toThrow('remove one or the other');
    expect(() => loadConfig({ STOREFRONT_AUTH: 'nope' })).toThrow('STOREFRONT_AUTH must be');
  });

  it('refuses short tokens and unreadable token files, never printing a token', () => {
    expect(() => loadConfig({ STOREFRONT_TOKENS: 'short' })).toThrow('shorter than 16 characters');
    expect(() => loadConfig({ STOREFRONT_TOKENS: 'short' })).not.toThrow(/short[^e]/);
    expect(() => loadConfig({ STOREFRONT_TOKENS_FILE: '/nonexistent/tokens' })).toThrow('cannot read STOREFRONT_TOKENS_FILE /nonexistent/tokens: ENOENT');
  });

  it('the server itself refuses no-auth on a non-loopback address', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'storefront-auth-'));
    try {
      await expect(
        startStorefront({ port: 0, host: '0.0.0.0', dbPath: join(dir, 'db.db'), bodyLimit: 1024, auth: { kind: 'none-local-only' } }),
      ).rejects.toThrow('only binds a loopback address');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('createAuthenticator', () => {
  it('accepts exactly the configured bearer tokens', () => {
    const ok = createAuthenticator({ kind: 'tokens', tokens: [TOKEN, OTHER] });
    expect(ok(`Bearer ${TOKEN}`)).toBe(true);
    expect(ok(`bearer ${OTHER}`)).toBe(true);
    for (const h of [undefined, '', 'Bearer', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, TOKEN]) expect(ok(h)).toBe(false);
  });
});

describe('over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ auth: { kind: 'tokens', tokens: [TOKEN] }, scrypt: TEST_SCRYPT });
    await server.running.seedPasswords; // so the only possible change to a record is the request's
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each([
    ['PUT', '/api/transactions/1'],
    ['GET', '/api/transactions/1'],
    ['GET', '/metrics'],
    ['GET', '/nowhere'],
  ])('%s %s without a token → 401 JSON with WWW-Authenticate, nothing changed', async (method, path) => {
    const before = await server.running.store.get(1n);
    const res = await http(server.port, {
      method,
      path,
      headers: { 'Content-Type': 'application/json' },
      ...(method === 'PUT' ? { body: toJson(transaction(1n, { type: 'intruder' })) } : {}),
    });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="storefront"');
    expect(JSON.parse(res.text)).toMatchObject({ status: 401, error: 'Unauthorized' });
    expect((await server.running.store.get(1n))?.etag).toBe(before?.etag);
  });

  it('two Authorization headers → 400 naming the problem, whichever comes first; nothing changed', async () => {
    const before = await server.running.store.get(1n);
    const body = toJson(transaction(1n, { type: 'two-tokens' }));
    for (const order of [[TOKEN, OTHER], [OTHER, TOKEN]]) {
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(server.port, '127.0.0.1', () => {
          socket.end(
            `PUT /api/transactions/1 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${order.map((t) => `Authorization: Bearer ${t}\r\n`).join('')}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
          );
        });
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(raw).toMatch(/^HTTP\/1\.1 400 /);
      expect(raw).toContain('send one Authorization header, not several');
    }
    expect((await server.running.store.get(1n))?.etag).toBe(before?.etag);
  });

  it('a wrong token → 401; the right one → 200', async () => {
    const wrong = await server.put(1n, toJson(transaction(1n)), { 'Content-Type': 'application/json', Authorization: `Bearer ${OTHER}` });
    expect(wrong.status).toBe(401);
    const right = await server.put(1n, toJson(transaction(1n, { type: 'authorised' })), { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` });
    expect(right.status).toBe(200);
    expect((await server.running.store.get(1n))?.tx.type).toBe('authorised');
  });
});
