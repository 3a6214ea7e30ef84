// The storefront's request handler: GET and PUT /api/transactions/{id}, GET /metrics.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createAuthenticator, type AuthConfig, WWW_AUTHENTICATE } from './auth.js';
import { parseIfMatch, preconditionHolds } from './etag.js';
import { acceptsJson, drainRequest, headerCount, headerValue, isJsonContentType, readBody } from './http.js';
import { JsonNumber, JsonObject, JsonSyntaxError, parseJson, stringifyJson, type JsonValue } from './json.js';
import type { StorefrontMetrics } from './metrics.js';
import { DEFAULT_SCRYPT, hashNeedsUpgrade, hashPassword, type ScryptParams, verifyPassword } from './password.js';
import { send, sendError } from './responses.js';
import { MAX_LISTED_PROBLEMS, parseInt64, ProblemList, validateTransaction, type Transaction } from './schema.js';
import { type PasswordChange, publicPart, type StoredRecord, type TransactionStore } from './store.js';

export const TRANSACTION_ROUTE = '/api/transactions/{id}';
const TRANSACTION_PATH = /^\/api\/transactions\/([^/]+)$/;

/** At most this many problems are listed in one 400 answer; the rest are counted in `omittedErrors`. */
export const MAX_LISTED_ERRORS = MAX_LISTED_PROBLEMS;
/** Array/object nesting allowed in a request body (the schema itself needs 5). */
export const MAX_BODY_DEPTH = 32;

export interface HandlerOptions {
  store: TransactionStore;
  metrics: StorefrontMetrics;
  bodyLimit: number;
  auth: AuthConfig;
  scrypt?: ScryptParams;
  /** Called for unexpected internal errors (message only; never request content). */
  onError?: (message: string) => void;
}

const NOT_ACCEPTABLE = 'this endpoint answers only application/json; send Accept: application/json, */* or none';

function sendRecord(res: ServerResponse, record: StoredRecord): void {
  send(res, 200, stringifyJson(record.tx), { ETag: record.etag });
}

/** The path id, or the problem with it (added to `problems`). */
function pathIdOf(rawId: string, problems: ProblemList): bigint | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawId);
  } catch {
    problems.add('{id}', 'path id is not valid percent-encoding');
    return undefined;
  }
  const r = parseInt64(decoded);
  if (r.ok) return r.value;
  problems.add('{id}', `path id: ${r.reason}`);
  return undefined;
}

function sendProblems(res: ServerResponse, problems: ProblemList): void {
  sendError(res, 400, `the request has ${problems.total} problem(s)`, {
    errors: problems.listed,
    omittedErrors: problems.omitted > 0 ? problems.omitted : undefined,
  });
}

export function createHandler(options: HandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { store, metrics, bodyLimit } = options;
  const scryptParams = options.scrypt ?? DEFAULT_SCRYPT;
  const onError = options.onError ?? ((m: string) => console.error(`storefront: ${m}`));
  const authenticated = createAuthenticator(options.auth);

  function tooLarge(req: IncomingMessage, res: ServerResponse): void {
    drainRequest(req);
    sendError(res, 413, `request body exceeds the limit of ${bodyLimit} bytes`, { headers: { Connection: 'close' } });
  }

  /** The hash to store for an edit: the stored one when the password is absent or unchanged (same ETag for the same edit). */
  async function passwordChange(sent: string | undefined, current: StoredRecord): Promise<PasswordChange> {
    if (sent === undefined) return { kind: 'keep' };
    const stored = current.passwordHash;
    if (stored !== null && !hashNeedsUpgrade(stored, scryptParams) && (await verifyPassword(sent, stored))) {
      return { kind: 'set', hash: stored };
    }
    return { kind: 'set', hash: await hashPassword(sent, scryptParams) };
  }

  async function handleGet(req: IncomingMessage, res: ServerResponse, rawId: string): Promise<void> {
    if (!acceptsJson(headerValue(req.headers.accept))) {
      sendError(res, 406, NOT_ACCEPTABLE);
      return;
    }
    const problems = new ProblemList();
    const id = pathIdOf(rawId, problems);
    if (id === undefined) {
      sendProblems(res, problems);
      return;
    }
    const record = await store.get(id);
    if (record === undefined) sendError(res, 404, `no transaction with id ${id}`);
    else sendRecord(res, record);
  }

  async function handlePut(req: IncomingMessage, res: ServerResponse, rawId: string): Promise<void> {
    if (!acceptsJson(headerValue(req.headers.accept))) {
      sendError(res, 406, NOT_ACCEPTABLE);
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

    // Collect every problem (the first 1000 listed): path id, JSON syntax, schema, id agreement.
    const problems = new ProblemList();
    const pathId = pathIdOf(rawId, problems);
    let parsed: JsonValue | undefined;
    let text: string | undefined;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(read.body);
    } catch {
      problems.add('$', 'malformed JSON: the body is not valid UTF-8');
    }
    if (text !== undefined) {
      try {
        parsed = parseJson(text, { maxDepth: MAX_BODY_DEPTH });
      } catch (err) {
        if (!(err instanceof JsonSyntaxError)) throw err;
        problems.add('$', `malformed JSON: ${err.message}`, err.position);
      }
    }
    let tx: Transaction | undefined;
    if (parsed !== undefined) {
      const v = validateTransaction(parsed, '$', problems);
      if (v.ok) tx = v.value;
      const bodyId = parsed instanceof JsonObject ? parsed.fields.get('id') : undefined;
      if (pathId !== undefined && bodyId instanceof JsonNumber) {
        const b = parseInt64(bodyId.raw);
        if (b.ok && b.value !== pathId) problems.add('$.id', `body id ${b.value} does not match path id ${pathId}`);
      }
    }
    if (problems.total > 0 || tx === undefined || pathId === undefined) {
      sendProblems(res, problems);
      return;
    }

    // Existence and precondition, checked before the (deliberately slow) hash, then again
    // atomically inside the store's write transaction.
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
    const password = await passwordChange(tx.user.password, existing);
    const outcome = await store.replace(pathId, publicPart(tx), password, ifMatch);
    switch (outcome.status) {
      case 'not-found':
        sendError(res, 404, `no transaction with id ${pathId}`);
        return;
      case 'precondition-failed':
        sendError(res, 412, 'If-Match does not match the current ETag of this transaction', { headers: { ETag: outcome.current.etag } });
        return;
      case 'replaced':
        sendRecord(res, outcome.record);
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

    // Node keeps the first of two Authorization headers and drops the other: which one the client
    // meant is unknown, so neither is taken.
    if (headerCount(req.rawHeaders, 'authorization') > 1) {
      drainRequest(req);
      sendError(res, 400, 'send one Authorization header, not several');
      return;
    }
    if (!authenticated(headerValue(req.headers.authorization))) {
      drainRequest(req);
      sendError(res, 401, 'send a valid API token: Authorization: Bearer <token>', { headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } });
      return;
    }
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
        else if (method === 'GET') work = handleGet(req, res, m[1]);
        else sendError(res, 405, `${method} is not allowed on ${TRANSACTION_ROUTE}; use GET or PUT`, { headers: { Allow: 'GET, PUT' } });
      } else {
        sendError(res, 404, 'no such route; the API is GET and PUT /api/transactions/{id}');
      }
    }
    work?.catch((err: unknown) => {
      onError(`internal error on ${method} ${route}: ${err instanceof Error ? err.message : String(err)}`);
      sendError(res, 500, 'internal error');
    });
  };
}
