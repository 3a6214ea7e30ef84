// The management client when the answer does not arrive: timeouts and broken transfers.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort } from '../../../support/http-server.js';
import { cleanups, server, client, failure, expectKind, expectNoSecret, withUncaughtCaptured } from './client-fixtures.js';

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('timeouts', () => {
  it('headers timeout: the server never answers', async () => {
    const s = await server(() => undefined);
    const c = client(s.url, { timeouts: { connectMs: 2000, headersMs: 200, bodyMs: 5000, totalMs: 20_000 } });
    const error = await failure(c.getJson('/api/overview'));
    expectKind(error, 'timeout', '/api/overview');
    expect(error.message).toContain('UND_ERR_HEADERS_TIMEOUT');
    expect(error.reason).toBe('timeout');
    expectNoSecret(error);
  });

  it('body timeout: headers and part of the body, then nothing', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.write('[{"name":"q1"},');
    });
    const c = client(s.url, { timeouts: { connectMs: 2000, headersMs: 5000, bodyMs: 200, totalMs: 20_000 } });
    const error = await failure(c.getJson('/api/queues'));
    expectKind(error, 'timeout', '/api/queues');
    expect(error.message).toContain('UND_ERR_BODY_TIMEOUT');
  });

  it('total deadline: no answer at all within totalMs', async () => {
    const s = await server(() => undefined);
    const c = client(s.url, { timeouts: { connectMs: 2000, headersMs: 20_000, bodyMs: 20_000, totalMs: 200 } });
    const error = await failure(c.getJson('/api/overview'));
    expectKind(error, 'timeout', '/api/overview');
    expect(error.message).toBe('GET /api/overview: no complete answer within 200 ms');
  });

  it('total deadline: a body trickling in slower than the deadline', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const timer = setInterval(() => res.write('1,'), 20);
      res.on('close', () => clearInterval(timer));
    });
    const c = client(s.url, { timeouts: { connectMs: 2000, headersMs: 20_000, bodyMs: 20_000, totalMs: 300 } });
    const error = await failure(c.getJson('/api/queues'));
    expectKind(error, 'timeout', '/api/queues');
    expect(error.message).toContain('within 300 ms');
  });
});

describe('broken transfers', () => {
  it('connection reset mid-body (fewer bytes than content-length) → network', async () => {
    const s = await server((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 5000 });
      res.write('[{"name":"q1","messages":1},');
      setTimeout(() => req.socket.destroy(), 20);
    });
    const error = await failure(client(s.url).getJson('/api/queues'));
    expectKind(error, 'network', '/api/queues');
    expect(error.status).toBeUndefined();
    expectNoSecret(error);
  });

  it('malformed JSON → malformed_json with the status', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('<html>login page</html>');
    });
    const error = await failure(client(s.url).getJson('/api/overview'));
    expectKind(error, 'malformed_json', '/api/overview');
    expect(error.status).toBe(200);
    expect(error.message).toBe('GET /api/overview: HTTP 200 with a body that is not JSON (23 bytes, starting: <html>login page</html>)');
    // JSON.parse's error quotes the body wherever it stopped, past any redaction: it is not kept.
    expect(error.cause).toBeUndefined();
  });

  it('truncated JSON in a complete chunked transfer → malformed_json', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"name":"q1","messages":1},');
      res.end('{"name":"q2","mess');
    });
    const error = await failure(client(s.url).getJson('/api/queues'));
    expectKind(error, 'malformed_json', '/api/queues');
  });

  it('an empty 200 body → malformed_json', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200);
      res.end();
    });
    const error = await failure(client(s.url).getJson('/api/overview'));
    expectKind(error, 'malformed_json', '/api/overview');
  });

  it('declared content-length over the cap → too_large, before reading the body', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4000 });
      res.end(`"${'x'.repeat(3998)}"`);
    });
    const c = client(s.url, { maxResponseBytes: 1000 });
    // See the it.fails test below: this path currently also emits an unhandled 'error' event.
    const { error } = await withUncaughtCaptured(() => failure(c.getJson('/api/queues')));
    expectKind(error, 'too_large', '/api/queues');
    expect(error.message).toBe('GET /api/queues: answer refused before it was read: it declares 4000 bytes, over the cap of 1000 bytes (target.max_response_bytes)');
    expect(c.bytesRead).toBe(0);
  });

  // A bug since fixed, kept as a regression test (src/broker/management-client.ts request, `body.destroy()` after the content-length
  // check): undici's body stream, destroyed without an error and without an 'error'
  // listener, emits RequestAbortedError as an unhandled 'error' event. In the exporter that is
  // an uncaught exception: any broker answer declaring more than max_response_bytes kills the
  // process (main.ts only handles unhandledRejection). Checked with the built client too:
  // the process exits 1 with "Unhandled 'error' event ... UND_ERR_ABORTED".
  it('an oversized declared body does not raise an uncaught exception', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4000 });
      res.end(`"${'x'.repeat(3998)}"`);
    });
    const c = client(s.url, { maxResponseBytes: 1000 });
    const { error, uncaught } = await withUncaughtCaptured(() => failure(c.getJson('/api/queues')));
    expect(error.kind).toBe('too_large');
    expect(uncaught.map((e) => String(e))).toEqual([]);
  });

  it('a chunked body growing over the cap → too_large', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      for (let i = 0; i < 10; i++) res.write(`"${'y'.repeat(300)}",`);
      res.end('1]');
    });
    const c = client(s.url, { maxResponseBytes: 1000 });
    const { error, uncaught } = await withUncaughtCaptured(() => failure(c.getJson('/api/queues')));
    expectKind(error, 'too_large', '/api/queues');
    expect(error.message).toContain('over the cap of 1000 bytes (target.max_response_bytes)');
    expect(uncaught).toEqual([]);
  });

  it('a body exactly at the cap is accepted', async () => {
    const text = `"${'z'.repeat(998)}"`;
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.end(text);
    });
    expect(await client(s.url, { maxResponseBytes: 1000 }).getJson('/api/x')).toBe('z'.repeat(998));
  });

  it('connection refused → network, naming the cause', async () => {
    const port = await closedPort();
    const error = await failure(client(`http://127.0.0.1:${port}`).getJson('/api/overview'));
    expectKind(error, 'network', '/api/overview');
    expect(error.message).toContain('ECONNREFUSED');
    expectNoSecret(error);
  });

  // Issue 24: each of 10,000 targets that were down held a connection pool (~20 kB) between polls.
  it('holds no pool while its broker refuses connections; keeps it while the broker answers; refuses requests once closed', async () => {
    const down = client(`http://127.0.0.1:${await closedPort()}`);
    expect(down.pooled).toBe(false);
    await failure(down.getJson('/api/overview'));
    expect(down.pooled).toBe(false);
    expectKind(await failure(down.getJson('/api/overview')), 'network', '/api/overview');

    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const up = client(s.url);
    expect(await up.getJson('/api/overview')).toEqual({});
    expect(up.pooled).toBe(true);
    await up.close();
    expect(up.pooled).toBe(true);
    expectKind(await failure(up.getJson('/api/overview')), 'network', '/api/overview');
  });

  // Issue 24: a Pool built and dropped on every refused poll was ~60 kB of garbage; at 10,000
  // targets the collections it caused stalled /-/healthy for up to half a second.
  it('builds no pool per poll while its broker refuses connections, with the same failure each time, and one once the broker listens', async () => {
    const port = await closedPort();
    const c = client(`http://127.0.0.1:${port}`);
    const first = await failure(c.getJson('/api/overview'));
    // Not even for the first poll: 10,000 targets down at start-up made 190 MB of garbage of their first pools.
    expect(c.poolsBuilt).toBe(0);
    for (let poll = 0; poll < 5; poll++) {
      const again = await failure(c.getJson('/api/overview'));
      expectKind(again, 'network', '/api/overview');
      expect(again.message).toBe(first.message);
      expectNoSecret(again);
    }
    expect(c.poolsBuilt).toBe(0);
    expect(c.pooled).toBe(false);

    const broker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"up":true}');
    });
    await new Promise<void>((resolve) => broker.listen(port, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => {
      broker.closeAllConnections();
      broker.close(() => resolve());
    }));
    expect(await c.getJson('/api/overview')).toEqual({ up: true });
    expect(await c.getJson('/api/overview')).toEqual({ up: true });
    expect(c.poolsBuilt).toBe(1);
    expect(c.pooled).toBe(true);
  });

  // The probe's connection is the pool's first: asking whether the broker listens costs no connection of its own.
  it('asks a listening broker over one connection: the one that found it listening', async () => {
    let connections = 0;
    const broker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"up":true}');
    });
    broker.on('connection', () => connections++);
    await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => {
      broker.closeAllConnections();
      broker.close(() => resolve());
    }));
    const c = client(`http://127.0.0.1:${(broker.address() as AddressInfo).port}`);
    expect(await c.getJson('/api/overview')).toEqual({ up: true });
    expect(connections).toBe(1);
    expect(c.poolsBuilt).toBe(1);
  });
});
