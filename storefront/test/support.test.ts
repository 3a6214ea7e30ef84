// The tests' HTTP client must fail, not hang, when the server cuts a connection without answering
// (it once swallowed that reset, so a test that closed the server too early waited for its timeout).

import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { http } from './support.js';

const servers: ReturnType<typeof createServer>[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(onConnection: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.add(socket);
    onConnection(socket);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

describe('http (test client)', () => {
  it('rejects, naming the reset, when the connection is cut before any answer', async () => {
    const port = await listen((socket) => socket.resetAndDestroy());
    await expect(http(port, { method: 'PUT', path: '/x', body: 'a body' })).rejects.toThrow(
      'the server closed the connection without an answer (ECONNRESET)',
    );
  });

  it('rejects when the connection is closed cleanly before any answer', async () => {
    const port = await listen((socket) => socket.end());
    await expect(http(port, { path: '/x' })).rejects.toThrow('the server closed the connection without an answer (ECONNRESET)');
  });

  it('still returns an answer sent before the server stopped reading the body', async () => {
    const port = await listen((socket) => {
      socket.once('data', () => {
        socket.end('HTTP/1.1 413 Payload Too Large\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno');
        socket.destroySoon();
      });
    });
    const answer = await http(port, { method: 'PUT', path: '/x', body: Buffer.alloc(8 << 20), chunked: true });
    expect(answer.status).toBe(413);
    expect(answer.text).toBe('no');
  });
});
