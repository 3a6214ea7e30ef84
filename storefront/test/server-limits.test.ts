// Slow, idle and malformed clients: deadlines, the connection cap, and JSON answers even
// where Node's HTTP parser, not our handler, refuses the request.

import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { startTestServer, toJson, transaction, type TestServer } from './support.js';

let server: TestServer;
const TIMEOUTS = { headers: 400, request: 1200, keepAlive: 300 };
beforeAll(async () => {
  server = await startTestServer({ timeouts: TIMEOUTS, maxConnections: 3 });
});
afterAll(async () => {
  await server.stop();
});

function open(): Promise<Socket> {
  const socket = connect(server.port, '127.0.0.1');
  return once(socket, 'connect').then(() => socket);
}

/** Everything the server sends until it closes the connection, and how long that took. */
async function untilClosed(socket: Socket): Promise<{ text: string; ms: number }> {
  const started = Date.now();
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined);
  await once(socket, 'close');
  return { text: Buffer.concat(chunks).toString('utf8'), ms: Date.now() - started };
}

function parseRaw(text: string): { status: number; headers: string; body: unknown } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: JSON.parse(body) };
}

describe('deadlines', () => {
  it('headers that never finish → 408 JSON once the headers deadline passes, and the connection is closed', async () => {
    const socket = await open();
    socket.write('PUT /api/transactions/1 HTTP/1.1\r\nHost: x\r\nContent-Type: appl');
    const { text, ms } = await untilClosed(socket);
    const res = parseRaw(text);
    expect(res.status).toBe(408);
    expect(res.headers).toContain('content-type: application/json');
    expect(res.body).toMatchObject({ status: 408, error: 'Request Timeout' });
    expect(ms).toBeGreaterThanOrEqual(TIMEOUTS.headers - 50);
  });

  it('a body that never finishes → 408 JSON once the request deadline passes', async () => {
    const socket = await open();
    socket.write('PUT /api/transactions/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"id":');
    const { text } = await untilClosed(socket);
    const res = parseRaw(text);
    expect(res.status).toBe(408);
    expect(res.body).toMatchObject({ status: 408 });
  });

  it('an idle keep-alive connection is closed after its deadline', async () => {
    const socket = await open();
    const body = toJson(transaction(1n));
    socket.write(`PUT /api/transactions/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    const { text, ms } = await untilClosed(socket);
    expect(text.startsWith('HTTP/1.1 200 OK')).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(TIMEOUTS.keepAlive - 50);
  });
});

describe("Node's own refusals are JSON too", () => {
  it('headers over the size limit → 431 JSON', async () => {
    const socket = await open();
    socket.write(`GET /api/transactions/1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`);
    const res = parseRaw((await untilClosed(socket)).text);
    expect(res.status).toBe(431);
    expect(res.body).toMatchObject({ status: 431, error: 'Request Header Fields Too Large' });
  });

  it('a malformed request → 400 JSON', async () => {
    const socket = await open();
    socket.write('THIS IS NOT HTTP\r\n\r\n');
    const res = parseRaw((await untilClosed(socket)).text);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, message: 'the request is not valid HTTP/1.1' });
  });
});

describe('connection cap', () => {
  it('past maxConnections a new connection is closed at once; when one closes, there is room again', async () => {
    const accepted = new Promise<void>((resolve) => {
      let n = 0;
      const count = () => {
        if (++n === 3) {
          server.running.server.off('connection', count);
          resolve();
        }
      };
      server.running.server.on('connection', count);
    });
    const held = await Promise.all([open(), open(), open()]);
    await accepted;
    const extra = await open();
    const { text } = await untilClosed(extra);
    expect(text).toBe('');
    const closed = once(held[0] as Socket, 'close');
    (held[0] as Socket).destroy();
    await closed;
    // The server sees the close asynchronously: ask until the fourth connection is served.
    let status = 0;
    while (status !== 200) {
      const res = await server.put(1n, toJson(transaction(1n))).catch(() => ({ status: 0 }));
      status = res.status;
    }
    for (const s of held) s.destroy();
  });
});
