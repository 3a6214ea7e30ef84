import { unwatchFile, watchFile } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, Server as HttpsServer } from 'node:https';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { WebLimits } from '../config/exporter-config.js';
import type { HttpCounters } from '../pipeline/own-series.js';
import { capConnections, TlsGate } from './connection-gate.js';
import { enforceDeadlines, serverTimeouts } from './deadlines.js';
import { readWebConfig, type WebConfig } from './web-config.js';

/** One address to listen on (`--web.listen-address`, repeated; web.listen_address, a list). */
export interface ListenAddress {
  host: string;
  port: number;
}

export interface WebServerOptions {
  /** Every address is served alike: the same handler, TLS, users and limits. */
  addresses: readonly ListenAddress[];
  /** `--web.config.file`: TLS and basic auth; none serves plain HTTP to anyone. */
  webConfigFile?: string;
  log: Logger;
  /** How often the web config and its certificate files are checked for changes. */
  watchIntervalMs?: number;
  /** web.read_timeout, write_timeout, idle_timeout; what they close is counted in `counters`. */
  limits: WebLimits;
  counters: HttpCounters;
}

/** What listens on one address: its HTTP(S) server, and the gate in front of an HTTPS one. */
interface Front {
  server: Server | HttpsServer;
  /** What listens: the HTTP server itself, or the gate in front of the HTTPS server. */
  listener: NetServer | Server;
  gate: TlsGate | undefined;
}

/**
 * The listening sockets, one per address (as the exporter-toolkit listens on each
 * --web.listen-address): HTTP, or HTTPS when the web config has a tls_server_config. The web
 * config file and the files it names are watched; a change is read and applied without a
 * restart (certificates rotate, users change). A new file that cannot be used keeps the old one
 * running and is logged; so is one that switches TLS on or off or changes client_auth_type,
 * which only a restart can apply.
 */
export class WebServer {
  private config: WebConfig | undefined;
  private watched: string[] = [];
  /** Answers not yet handed to their connection in full. */
  private readonly inFlight = new Set<ServerResponse>();
  /** Open connections: an answer handed to one may still wait in its buffer. */
  private readonly sockets = new Set<Socket>();
  private stopping = false;

  private constructor(
    private readonly fronts: readonly Front[],
    private readonly options: WebServerOptions,
    initial: WebConfig | undefined,
  ) {
    this.config = initial;
    this.watch();
    for (const { server } of fronts) {
      server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
        if (this.stopping) res.setHeader('Connection', 'close');
        this.inFlight.add(res);
        const done = () => this.inFlight.delete(res);
        res.once('finish', done);
        res.once('close', done);
      });
      server.on(server instanceof HttpsServer ? 'secureConnection' : 'connection', (socket: Socket) => {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
      });
      if (server instanceof HttpsServer) server.on('secureConnection', (socket: TLSSocket) => this.checkClient(socket));
    }
  }

  /** Reads the web config (throws WebConfigError) and starts listening on every address; one that fails closes those already listening. */
  static async start(handler: RequestListener, options: WebServerOptions): Promise<WebServer> {
    const config = options.webConfigFile ? readWebConfig(options.webConfigFile) : undefined;
    const fronts = options.addresses.map(() => front(handler, config, options));
    const web = new WebServer(fronts, options, config);
    try {
      for (const [i, { listener }] of fronts.entries()) await listen(listener, options.addresses[i]!);
    } catch (error) {
      await web.close(0);
      throw error;
    }
    return web;
  }

  /** The web config in force (for the auth middleware), undefined without --web.config.file. */
  current(): WebConfig | undefined {
    return this.config;
  }

  /** Each address's HTTP(S) server, in the order of `addresses`. */
  get servers(): (Server | HttpsServer)[] {
    return this.fronts.map((f) => f.server);
  }

  /** Where it listens, in the order of `addresses` (a port 0 resolved to the one the system chose). */
  get addresses(): AddressInfo[] {
    return this.fronts.map((f) => f.listener.address() as AddressInfo);
  }

  get protocol(): 'http' | 'https' {
    return this.config?.tls ? 'https' : 'http';
  }

  /**
   * Lets the answers in flight finish (written out to the kernel, not only to Node's buffers),
   * then stops listening and closes every connection; whatever still runs after `graceMs` is cut.
   * Answers started meanwhile say `Connection: close`. (server.close() alone would destroy a
   * keep-alive connection whose answer is still in its buffer, since HTTP sees it as idle.)
   */
  async close(graceMs = 5000): Promise<void> {
    for (const file of this.watched) unwatchFile(file);
    this.watched = [];
    this.stopping = true;
    const deadline = performance.now() + graceMs;
    const busy = () => this.inFlight.size > 0 || [...this.sockets].some((socket) => socket.writableLength > 0);
    while (busy() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = this.fronts.map(({ listener }) => new Promise<void>((resolve) => (listener.listening ? listener.close(() => resolve()) : resolve())));
    for (const { server, gate } of this.fronts) {
      server.closeAllConnections();
      gate?.destroyWaiting();
    }
    await Promise.all(closed);
  }

  /** Client certificate rules Node's options cannot say: any certificate, verified if given, allowed SANs. */
  private checkClient(socket: TLSSocket): void {
    const tls = this.config?.tls;
    if (!tls) return;
    const cert = socket.getPeerCertificate();
    const given = cert !== null && typeof cert === 'object' && Object.keys(cert).length > 0;
    const refuse = (why: string) => {
      this.options.log.warn({ remote: socket.remoteAddress, reason: why }, 'TLS client refused');
      socket.destroy();
    };
    if (tls.clientAuth === 'RequireAnyClientCert' && !given) {
      refuse('no client certificate');
      return;
    }
    if (tls.clientAuth === 'VerifyClientCertIfGiven' && given && !socket.authorized) {
      refuse(`client certificate not verified: ${socket.authorizationError}`);
      return;
    }
    if (tls.allowedSans && tls.allowedSans.length > 0) {
      const sans = (given ? (cert.subjectaltname ?? '') : '').split(', ').map((entry) => entry.slice(entry.indexOf(':') + 1));
      if (!tls.allowedSans.some((allowed) => sans.includes(allowed))) refuse('client certificate has no allowed subject alternative name');
    }
  }

  private watch(): void {
    for (const file of this.watched) unwatchFile(file);
    const file = this.options.webConfigFile;
    this.watched = file ? [file, ...(this.config?.tls?.files ?? [])] : [];
    for (const watched of this.watched) {
      watchFile(watched, { interval: this.options.watchIntervalMs ?? 1000, persistent: false }, (now, before) => {
        if (now.mtimeMs !== before.mtimeMs || now.size !== before.size || now.ino !== before.ino) this.reload();
      });
    }
  }

  private reload(): void {
    const { log, webConfigFile } = this.options;
    let next: WebConfig;
    try {
      next = readWebConfig(webConfigFile!);
    } catch (error) {
      log.error({ err: { message: (error as Error).message } }, 'web config not reloaded: the new one cannot be used; the previous one stays in force');
      return;
    }
    const before = this.config?.tls;
    if (Boolean(before) !== Boolean(next.tls) || before?.clientAuth !== next.tls?.clientAuth) {
      log.error({ file: webConfigFile }, 'web config not reloaded: switching TLS on or off, or changing client_auth_type, needs a restart');
      return;
    }
    if (next.tls) {
      try {
        for (const { server } of this.fronts) (server as HttpsServer).setSecureContext(next.tls.context);
      } catch (error) {
        // A certificate written before its key: the next change of the files tries again.
        log.error({ err: { message: (error as Error).message } }, 'web config not reloaded: its certificate and key cannot be used together');
        return;
      }
    }
    this.config = next;
    this.watch();
    log.info({ file: webConfigFile, tls: Boolean(next.tls), users: next.users.size }, 'web config reloaded');
  }
}

/** One address's server: HTTPS behind its gate when the web config has TLS, else HTTP; its deadlines and connection cap. */
function front(handler: RequestListener, config: WebConfig | undefined, options: WebServerOptions): Front {
  const tls = config?.tls;
  const timeouts = serverTimeouts(options.limits);
  const server = tls
    ? createHttpsServer({ ...timeouts, ...tls.context, requestCert: tls.clientAuth !== 'NoClientCert', rejectUnauthorized: tls.clientAuth === 'RequireAndVerifyClientCert' }, handler)
    : createHttpServer(timeouts, handler);
  enforceDeadlines(server, options.limits, options.counters, options.log);
  const gate = tls ? new TlsGate(server as HttpsServer, options.limits, options.counters, options.log) : undefined;
  if (!gate) capConnections(server, options.limits, options.counters);
  return { server, listener: gate?.listener ?? server, gate };
}

function listen(listener: NetServer | Server, { host, port }: ListenAddress): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    const done = () => {
      listener.off('error', reject);
      resolve();
    };
    if (host) listener.listen(port, host, done);
    else listener.listen(port, done);
  });
}
