import { createServer, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { WebConfig } from '../config/load-config.js';
import type { HttpCounters } from '../self/exporter-metrics.js';

/** How often Node looks for requests past web.read_timeout (its default, 30 s, would let one run 40 s). */
const READ_CHECK_MS = 1000;

/**
 * The HTTP server around the app, with a deadline at each end of a request. A client that never
 * reads its answer would otherwise hold its connection, and the snapshot being written to it,
 * for as long as it likes: the answer is written from the snapshot's own buffers.
 */
export function createHttpServer(app: RequestListener, web: WebConfig, counters: HttpCounters, log: Logger): Server {
  /** Connections with an answer under way: an error answer must not be written into it. */
  const answering = new WeakSet<object>();
  const server = createServer(
    {
      requestTimeout: web.readTimeoutMs,
      headersTimeout: web.readTimeoutMs,
      keepAliveTimeout: web.idleTimeoutMs,
      connectionsCheckingInterval: Math.min(READ_CHECK_MS, web.readTimeoutMs),
    },
    (req, res) => {
      answering.add(req.socket);
      const deadline = setTimeout(() => {
        counters.writeTimeouts++;
        log.debug({ path: req.url, remote: req.socket.remoteAddress, unwritten_bytes: res.writableLength }, 'answer not taken within web.write_timeout: connection closed');
        // Destroying the socket drops the buffers still queued on it.
        res.destroy();
      }, web.writeTimeoutMs);
      // 'close' comes once the answer is handed to the network, or when the connection ends.
      res.once('close', () => {
        clearTimeout(deadline);
        answering.delete(req.socket);
      });
      app(req, res);
    },
  );
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
  return server;
}
