// Starting and stopping the service: the store, the seed, and a node:http server with
// deadlines, a connection cap and JSON answers even for requests Node's parser rejects.

import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createHandler, type HandlerOptions } from './app.js';
import type { StorefrontConfig } from './config.js';
import { isLoopback } from './auth.js';
import { readLegacyFile } from './legacy-json.js';
import { createMetrics, type StorefrontMetrics } from './metrics.js';
import { DEFAULT_SCRYPT, type ScryptParams } from './password.js';
import { rawErrorResponse } from './responses.js';
import { loadSeed } from './seed.js';
import { hashSeedPasswords, type SeedPasswordTask } from './seed-passwords.js';
import { SqliteTransactionStore } from './sqlite-store.js';
import { publicPart, type TransactionStore } from './store.js';

/** Deadlines against slow or idle clients (ms). */
export interface ServerTimeouts {
  /** From connection (or the previous request) until all headers are in. */
  headers: number;
  /** Until the whole request, body included, is in. */
  request: number;
  /** An idle keep-alive connection is closed after this. */
  keepAlive: number;
}

export const DEFAULT_TIMEOUTS: ServerTimeouts = { headers: 10_000, request: 30_000, keepAlive: 5_000 };

export interface StartOptions extends Omit<StorefrontConfig, 'maxConnections'> {
  maxConnections?: number;
  timeouts?: ServerTimeouts;
  scrypt?: ScryptParams;
  onError?: (message: string) => void;
}

export interface RunningStorefront {
  readonly server: Server;
  readonly port: number;
  readonly dbPath: string;
  /** How many seed records were loaded into the (empty) store at start; 0 if none. */
  readonly seeded: number;
  /** How many records were imported from the pre-database JSON file (only when the database was created). */
  readonly imported: number;
  /** The seed's passwords being hashed in the background (resolves at once without a seed). */
  readonly seedPasswords: Promise<number>;
  readonly store: TransactionStore;
  readonly metrics: StorefrontMetrics;
  /** Stop accepting connections, let in-flight requests finish (cut after `graceMs`), close the store. */
  close(graceMs?: number): Promise<void>;
}

/** The message for a request Node's HTTP parser refused before our handler saw it. */
function clientErrorAnswer(code: string | undefined): [number, string] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'the request headers are too large'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'the request was not received in time'];
  return [400, 'the request is not valid HTTP/1.1'];
}

export async function startStorefront(options: StartOptions): Promise<RunningStorefront> {
  if (options.auth.kind === 'none-local-only' && (options.host === undefined || !isLoopback(options.host))) {
    throw new Error('without authentication the service only binds a loopback address (127.0.0.1, ::1)');
  }
  const scryptParams = options.scrypt ?? DEFAULT_SCRYPT;
  const onError = options.onError ?? ((m: string) => console.error(`storefront: ${m}`));
  // The seed is validated even when it will not be loaded, so a broken file is noticed at once.
  const seed = options.seedPath === undefined ? undefined : await loadSeed(options.seedPath);
  const importPath = options.importJsonPath;
  const store = SqliteTransactionStore.open(options.dbPath, importPath === undefined ? {} : { initialRecords: () => readLegacyFile(importPath) });
  let seeded = 0;
  let seedTask: SeedPasswordTask | undefined;
  try {
    if (seed !== undefined && seed.length > 0) {
      // Stored now without hashes; the passwords are hashed once the port is open.
      seeded = await store.seedIfEmpty(seed.map((tx) => ({ tx: publicPart(tx), passwordHash: null })));
    }
  } catch (err) {
    await store.close();
    throw err;
  }
  const metrics = createMetrics();
  const handlerOptions: HandlerOptions = { store, metrics, bodyLimit: options.bodyLimit, auth: options.auth, scrypt: scryptParams, onError };
  const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
  const server = createServer(
    {
      headersTimeout: timeouts.headers,
      requestTimeout: timeouts.request,
      keepAliveTimeout: timeouts.keepAlive,
      // How often Node checks the two deadlines above (its default, 30 s, would let them slip).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeouts.headers / 4))),
    },
    createHandler(handlerOptions),
  );
  server.maxConnections = options.maxConnections ?? 1000;
  // A socket with no traffic at all for twice the request deadline is closed (e.g. a client that
  // stopped reading its answer); later than the request deadline, so a slow body gets its 408 first.
  server.timeout = 2 * timeouts.request;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, message] = clientErrorAnswer(err.code);
    socket.end(rawErrorResponse(status, message));
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await store.close();
    throw err;
  }
  if (seed !== undefined) seedTask = hashSeedPasswords(store, seed, scryptParams, onError);

  let closing: Promise<void> | undefined;
  return {
    server,
    port: (server.address() as AddressInfo).port,
    dbPath: store.path,
    seeded,
    imported: store.imported,
    seedPasswords: seedTask?.done ?? Promise.resolve(0),
    store,
    metrics,
    close(graceMs = 10_000) {
      closing ??= (async () => {
        seedTask?.stop();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        await stopped;
        clearTimeout(timer);
        await seedTask?.done;
        await store.close();
      })();
      return closing;
    },
  };
}
