// What the landing page's hints are chosen from: the real client's errors against real sockets,
// classified into the kinds of trouble an operator can act on.
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ManagementClient } from '../../../src/broker/management-client.js';
import { failureCause } from '../../../src/broker/failure-cause.js';
import { closedPort, serve } from '../../support/http-server.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function client(url: string, { maxResponseBytes = 1024 * 1024, totalMs = 10_000 } = {}): ManagementClient {
  const c = new ManagementClient({
    url,
    username: 'monitor',
    password: 'secret',
    timeouts: { connectMs: 2000, headersMs: 5000, bodyMs: 5000, totalMs },
    maxResponseBytes,
    maxConcurrentRequests: 2,
  });
  cleanups.push(() => c.close().catch(() => undefined));
  return c;
}

async function errorOf(url: string, options?: Parameters<typeof client>[1], signal?: AbortSignal): Promise<unknown> {
  return client(url, options)
    .getJson('/api/overview', undefined, signal ? { signal } : {})
    .then(
      () => new Error('expected a failure'),
      (error: unknown) => error,
    );
}

async function answering(status: number, body: string): Promise<string> {
  const s = await serve((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  cleanups.push(() => s.close());
  return s.url;
}

describe('failureCause', () => {
  it('401 and 403 are told apart from other statuses', async () => {
    expect(failureCause(await errorOf(await answering(401, '{"error":"not_authorized"}')), false)).toEqual({ kind: 'unauthorized', status: 401 });
    expect(failureCause(await errorOf(await answering(403, '{"error":"forbidden"}')), false)).toEqual({ kind: 'forbidden', status: 403 });
    expect(failureCause(await errorOf(await answering(503, '{"error":"x"}')), false)).toEqual({ kind: 'http_status', status: 503 });
  });

  it('nothing listening is connection_refused', async () => {
    expect(failureCause(await errorOf(`http://127.0.0.1:${await closedPort()}`), false)).toEqual({ kind: 'connection_refused' });
  });

  it('a port that does not speak HTTP (as AMQP answers) is not_http', async () => {
    // What RabbitMQ's AMQP listener does with an HTTP request: its protocol header, then close.
    const sockets: Socket[] = [];
    const amqp: TcpServer = createTcpServer((socket) => {
      sockets.push(socket);
      socket.end(Buffer.from('AMQP\u0000\u0000\u0009\u0001'));
    });
    await new Promise<void>((resolve) => amqp.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => amqp.close(() => resolve()));
    });
    const { port } = amqp.address() as { port: number };
    expect(failureCause(await errorOf(`http://127.0.0.1:${port}`), false)).toEqual({ kind: 'not_http' });
  });

  it('an answer over the cap is too_large, one that is not JSON not_json', async () => {
    expect(failureCause(await errorOf(await answering(200, `"${'x'.repeat(5000)}"`), { maxResponseBytes: 1000 }), false)).toEqual({ kind: 'too_large' });
    expect(failureCause(await errorOf(await answering(200, '<html>port 80</html>')), false)).toEqual({ kind: 'not_json' });
  });

  it("the request's own deadline is request_timeout; the poll's, poll_deadline", async () => {
    const stalled = await serve(() => undefined);
    cleanups.push(() => stalled.close());
    expect(failureCause(await errorOf(stalled.url, { totalMs: 200 }), false)).toEqual({ kind: 'request_timeout' });
    const poll = AbortSignal.timeout(200);
    expect(failureCause(await errorOf(stalled.url, {}, poll), poll.aborted)).toEqual({ kind: 'poll_deadline' });
    expect(failureCause(new Error("the poll's deadline of 200 ms passed and the collector did not stop"), true)).toEqual({ kind: 'poll_deadline' });
    expect(failureCause(new Error('a collector bug'), false)).toEqual({ kind: 'other' });
  });
});
