// The storefront HTTP service: PUT /api/transactions/{id} and GET /metrics, on node:http.

import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StorefrontConfig } from './config.js';
import { parseIfMatch, preconditionHolds } from './etag.js';
import { acceptsJson, drainRequest, headerValue, isJsonContentType, readBody } from './http.js';
import { JsonNumber, JsonObject, JsonSyntaxError, parseJson, stringifyJson, type JsonValue } from './json.js';
import { createMetrics, type StorefrontMetrics } from './metrics.js';
import { DEFAULT_SCRYPT, hashPassword, type ScryptParams } from './password.js';
import { parseInt64, validateTransaction, type Transaction, type ValidationError } from './schema.js';
import { loadSeed } from './seed.js';
import { FileTransactionStore, type TransactionStore } from './store.js';

export const TRANSACTION_ROUTE = '/api/transactions/{id}';
const TRANSACTION_PATH = /^\/api\/transactions\/([^/]+)$/;

/** At most this many problems are listed in one 400 answer; the rest are counted in `omittedErrors`. */
export const MAX_LISTED_ERRORS = 1000;
/** Array/object nesting allowed in a request body (the schema itself needs 5). */
export const MAX_BODY_DEPTH = 32;

export interface ProblemDetail extends ValidationError {
  /** For malformed JSON: 0-based character offset of the problem. */
  position?: number;
}

export interface HandlerOptions {
  store: TransactionStore;
  metrics: StorefrontMetrics;
  bodyLimit: number;
  scrypt?: ScryptParams;
  /** Called for unexpected internal errors (message only; never request content). */
  onError?: (message: string) => void;
}

/** What a client sees of a stored transaction: everything except the user's password (omitted). */
export function publicView(tx: Transaction): Omit<Transaction, 'user'> & { user: Omit<Transaction['user'], 'password'> } {
  const { password: _password, ...user } = tx.user;
  return { ...tx, user };
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  extra: { errors?: ProblemDetail[]; omittedErrors?: number; headers?: Record<string, string> } = {},
): void {
  const body = stringifyJson({
    status,
    error: STATUS_CODES[status] ?? 'Error',
    message,
    errors: extra.errors,
    omittedErrors: extra.omittedErrors,
  });
  send(res, status, body, extra.headers);
}

export function createHandler(options: HandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { store, metrics, bodyLimit } = options;
  const scryptParams = options.scrypt ?? DEFAULT_SCRYPT;
  const onError = options.onError ?? ((m: string) => console.error(`storefront: ${m}`));

  function tooLarge(req: IncomingMessage, res: ServerResponse): void {
    drainRequest(req);
    sendError(res, 413, `request body exceeds the limit of ${bodyLimit} bytes`, { headers: { Connection: 'close' } });
  }

  async function handlePut(req: IncomingMessage, res: ServerResponse, rawId: string): Promise<void> {
    if (!acceptsJson(headerValue(req.headers.accept))) {
      sendError(res, 406, 'this endpoint answers only application/json; send Accept: application/json, */* or none');
      return;
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      sendError(res, 415, 'the body must be sent with Content-Type: application/json (UTF-8)');
      return;
    }
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      sendError(res, 415, 'Content-Encoding is not supported; send the body uncompressed');
      return;
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > bodyLimit) {
      tooLarge(req, res);
      return;
    }
    const read = await readBody(req, bodyLimit);
    if (read.kind === 'aborted') return;
    if (read.kind === 'too-large') {
      tooLarge(req, res);
      return;
    }

    // Collect every problem: path id, JSON syntax, schema, id agreement.
    const errors: ProblemDetail[] = [];
    let pathId: bigint | undefined;
    let decodedId: string | undefined;
    try {
      decodedId = decodeURIComponent(rawId);
    } catch {
      errors.push({ path: '{id}', reason: 'path id is not valid percent-encoding' });
    }
    if (decodedId !== undefined) {
      const r = parseInt64(decodedId);
      if (r.ok) pathId = r.value;
      else errors.push({ path: '{id}', reason: `path id: ${r.reason}` });
    }

    let parsed: JsonValue | undefined;
    let text: string | undefined;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(read.body);
    } catch {
      errors.push({ path: '$', reason: 'malformed JSON: the body is not valid UTF-8' });
    }
    if (text !== undefined) {
      try {
        parsed = parseJson(text, { maxDepth: MAX_BODY_DEPTH });
      } catch (err) {
        if (!(err instanceof JsonSyntaxError)) throw err;
        errors.push({ path: '$', reason: `malformed JSON: ${err.message}`, position: err.position });
      }
    }
    let tx: Transaction | undefined;
    if (parsed !== undefined) {
      const v = validateTransaction(parsed);
      if (v.ok) tx = v.value;
      else errors.push(...v.errors);
      const bodyId = parsed instanceof JsonObject ? parsed.fields.get('id') : undefined;
      if (pathId !== undefined && bodyId instanceof JsonNumber) {
        const b = parseInt64(bodyId.raw);
        if (b.ok && b.value !== pathId) {
          errors.push({ path: '$.id', reason: `body id ${b.value} does not match path id ${pathId}` });
        }
      }
    }
    if (errors.length > 0 || tx === undefined || pathId === undefined) {
      const listed = errors.slice(0, MAX_LISTED_ERRORS);
      sendError(res, 400, `the request has ${errors.length} problem(s)`, {
        errors: listed,
        omittedErrors: errors.length > listed.length ? errors.length - listed.length : undefined,
      });
      return;
    }

    // Existence and precondition, checked before the (deliberately slow) hash, then again
    // atomically inside the store's write queue.
    const ifMatch = parseIfMatch(headerValue(req.headers['if-match']));
    const existing = await store.get(pathId);
    if (existing === undefined) {
      sendError(res, 404, `no transaction with id ${pathId}`);
      return;
    }
    if (!preconditionHolds(ifMatch, existing.etag)) {
      sendError(res, 412, 'If-Match does not match the current ETag of this transaction', { headers: { ETag: existing.etag } });
      return;
    }
    const toStore: Transaction = { ...tx, user: { ...tx.user, password: await hashPassword(tx.user.password, scryptParams) } };
    const outcome = await store.replace(pathId, toStore, ifMatch);
    switch (outcome.status) {
      case 'not-found':
        sendError(res, 404, `no transaction with id ${pathId}`);
        return;
      case 'precondition-failed':
        sendError(res, 412, 'If-Match does not match the current ETag of this transaction', { headers: { ETag: outcome.current.etag } });
        return;
      case 'replaced':
        send(res, 200, stringifyJson(publicView(outcome.record.tx)), { ETag: outcome.record.etag });
        return;
    }
  }

  async function serveMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await metrics.registry.metrics();
    res.statusCode = 200;
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(req.method === 'HEAD' ? undefined : text);
  }

  return (req, res) => {
    const started = process.hrtime.bigint();
    const method = req.method ?? '';
    let route = 'unmatched';
    res.once('close', () => {
      metrics.observe(method, route, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });

    const pathname = (req.url ?? '/').split('?', 1)[0] ?? '/';
    let work: Promise<void> | undefined;
    if (pathname === '/metrics') {
      route = '/metrics';
      if (method === 'GET' || method === 'HEAD') work = serveMetrics(req, res);
      else sendError(res, 405, `${method} is not allowed on /metrics`, { headers: { Allow: 'GET, HEAD' } });
    } else {
      const m = TRANSACTION_PATH.exec(pathname);
      if (m !== null && m[1] !== undefined) {
        route = TRANSACTION_ROUTE;
        if (method === 'PUT') work = handlePut(req, res, m[1]);
        else sendError(res, 405, `${method} is not allowed on ${TRANSACTION_ROUTE}; use PUT`, { headers: { Allow: 'PUT' } });
      } else {
        sendError(res, 404, 'no such route; the API is PUT /api/transactions/{id}');
      }
    }
    work?.catch((err: unknown) => {
      onError(`internal error on ${method} ${route}: ${err instanceof Error ? err.message : String(err)}`);
      sendError(res, 500, 'internal error');
    });
  };
}

export interface StartOptions extends StorefrontConfig {
  scrypt?: ScryptParams;
  onError?: (message: string) => void;
}

export interface RunningStorefront {
  readonly server: Server;
  readonly port: number;
  readonly dbPath: string;
  /** How many seed records were loaded into the (empty) store at start; 0 if none. */
  readonly seeded: number;
  readonly store: TransactionStore;
  readonly metrics: StorefrontMetrics;
  /** Stop accepting connections, let in-flight requests finish (cut after `graceMs`), flush the store. */
  close(graceMs?: number): Promise<void>;
}

export async function startStorefront(options: StartOptions): Promise<RunningStorefront> {
  const scryptParams = options.scrypt ?? DEFAULT_SCRYPT;
  // The seed is validated even when it will not be loaded, so a broken file is noticed at once.
  const seed = options.seedPath === undefined ? undefined : await loadSeed(options.seedPath);
  const store = await FileTransactionStore.open(options.dbPath);
  let seeded = 0;
  if (seed !== undefined && seed.length > 0 && (await store.size()) === 0) {
    const hashed = await Promise.all(
      seed.map(async (tx) => ({ ...tx, user: { ...tx.user, password: await hashPassword(tx.user.password, scryptParams) } })),
    );
    seeded = await store.seedIfEmpty(hashed);
  }
  const metrics = createMetrics();
  const handlerOptions: HandlerOptions = { store, metrics, bodyLimit: options.bodyLimit, scrypt: scryptParams };
  if (options.onError !== undefined) handlerOptions.onError = options.onError;
  const server = createServer(createHandler(handlerOptions));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  let closing: Promise<void> | undefined;
  return {
    server,
    port: (server.address() as AddressInfo).port,
    dbPath: store.path,
    seeded,
    store,
    metrics,
    close(graceMs = 10_000) {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        await stopped;
        clearTimeout(timer);
        await store.close();
      })();
      return closing;
    },
  };
}
