import type { Server as HttpServer, ServerOptions } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { WebLimits } from '../config/exporter-config.js';
import type { HttpCounters } from '../pipeline/own-series.js';

/** How often Node looks for requests past web.read_timeout (its default, 30 s, would let one run 40 s). */
const READ_CHECK_MS = 1000;

/** Node's own deadlines: receiving a request (web.read_timeout), and idle keep-alive connections. */
export function serverTimeouts(limits: WebLimits): ServerOptions {
  return {
    requestTimeout: limits.readTimeoutMs,
    headersTimeout: limits.readTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    connectionsCheckingInterval: Math.min(READ_CHECK_MS, limits.readTimeoutMs),
  };
}

/**
 * A deadline for each answer (web.write_timeout) and a count of every connection closed for a
 * deadline. A client that never reads its answer would otherwise hold its connection, and the
 * snapshot being written to it, for as long as it likes: answers are written from the
 * snapshot's own buffers.
 */
export function enforceDeadlines(server: HttpServer | HttpsServer, limits: WebLimits, counters: HttpCounters, log: Logger): void {
  /** Connections with an answer under way: an error answer must not be written into it. */
  const answering = new WeakSet<object>();
  server.on('request', (req, res) => {
    answering.add(req.socket);
    const deadline = setTimeout(() => {
      counters.writeTimeouts++;
      log.debug({ path: req.url, remote: req.socket.remoteAddress, unwritten_bytes: res.writableLength }, 'answer not taken within web.write_timeout: connection closed');
      // Destroying the socket drops the buffers still queued on it.
      res.destroy();
    }, limits.writeTimeoutMs);
    // 'close' comes once the answer is handed to the network, or when the connection ends.
    res.once('close', () => {
      clearTimeout(deadline);
      answering.delete(req.socket);
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (timedOut) {
      counters.readTimeouts++;
      log.debug({ remote: (socket as { remoteAddress?: string }).remoteAddress }, 'request not received within web.read_timeout: connection closed');
    }
    // As Node does without a listener: a short answer when none has begun, then the connection ends.
    if (socket.writable && !answering.has(socket) && error.code !== 'ECONNRESET') {
      socket.write(timedOut ? 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n' : 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    }
    socket.destroy();
  });
}
