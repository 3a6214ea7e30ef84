import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { WebLimits } from '../config/exporter-config.js';
import type { HttpCounters } from '../pipeline/own-series.js';

/** Go's net/http says the same to plain HTTP on its TLS port; a client (or a human) sees what went wrong. */
const PLAIN_HTTP_BODY = 'Client sent an HTTP request to an HTTPS server.\n';
const PLAIN_HTTP_ANSWER = `HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${PLAIN_HTTP_BODY.length}\r\nConnection: close\r\n\r\n${PLAIN_HTTP_BODY}`;

/**
 * At most web.max_connections open at once: past it, a new connection is closed as soon as it is
 * accepted, before a byte is read (Node's maxConnections), and counted. Silent connections would
 * otherwise take every descriptor the process may open (1,100 of them under `ulimit -n 1024`).
 */
export function capConnections(listener: NetServer | HttpServer, limits: WebLimits, counters: HttpCounters): void {
  listener.maxConnections = limits.maxConnections;
  listener.on('drop', () => counters.connectionsRefused++);
}

/**
 * The listening socket in front of the HTTPS server. Node's TLS server waits 120 s for a
 * handshake and answers plain HTTP with nothing; here a connection must have sent its first
 * request's headers within web.read_timeout of being accepted, handshake included, and its first
 * byte is looked at before TLS: plain HTTP gets a 400 that says so. Connections are handed to the
 * HTTPS server, which never listens itself.
 */
export class TlsGate {
  readonly listener: NetServer;
  /** Connections accepted whose first request has not arrived yet, by their endpoints. */
  private readonly waiting = new Map<string, Socket>();

  constructor(inner: HttpsServer, limits: WebLimits, counters: HttpCounters, log: Logger) {
    this.listener = createServer();
    capConnections(this.listener, limits, counters);
    inner.on('request', (req) => this.waiting.delete(endpoints(req.socket)));
    this.listener.on('connection', (raw: Socket) => {
      // Errors end in 'close'; the TLS socket reports its own once it wraps this one.
      raw.on('error', () => raw.destroy());
      const key = endpoints(raw);
      this.waiting.set(key, raw);
      const deadline = setTimeout(() => {
        if (this.waiting.get(key) !== raw) return;
        counters.readTimeouts++;
        log.debug({ remote: raw.remoteAddress }, 'no TLS handshake and request within web.read_timeout: connection closed');
        raw.destroy();
      }, limits.readTimeoutMs);
      raw.once('close', () => {
        clearTimeout(deadline);
        if (this.waiting.get(key) === raw) this.waiting.delete(key);
      });
      raw.once('data', (first: Buffer) => {
        raw.pause();
        // A TLS record starts with its type (20-24); an HTTP request with its method's capitals.
        if (first[0]! >= 0x41 && first[0]! <= 0x5a) {
          raw.end(PLAIN_HTTP_ANSWER);
          return;
        }
        // The TLS socket reads what is put back before reading from the connection itself.
        raw.unshift(first);
        inner.emit('connection', raw);
      });
    });
    // Node starts tracking a server's connections (its request, headers and keep-alive
    // deadlines, closeAllConnections) when the server listens; this one never does itself.
    inner.emit('listening');
  }

  /** Closes the connections still waiting for their first request (at shutdown). */
  destroyWaiting(): void {
    for (const socket of this.waiting.values()) socket.destroy();
  }
}

/** The two ends of a connection: the same for the accepted socket and the TLS socket wrapping it. */
function endpoints(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}|${socket.localAddress}|${socket.localPort}`;
}
