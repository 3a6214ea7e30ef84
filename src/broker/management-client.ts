import type { Socket } from 'node:net';
import { buildConnector, type Dispatcher, Pool, errors as undiciErrors } from 'undici';
import pLimit, { type LimitFunction } from 'p-limit';
import { Redactor } from './redactor.js';
import { answerCap, answerKind } from './answer-caps.js';
import { Deadline } from './deadline.js';
import { ManagementError } from './errors.js';
import { AnswerTooLarge, describeBytes, MalformedAnswer, readJson, stop as discard, type BodyStream } from './read-json.js';
import { readText } from './read-text.js';
import { ListeningProbe } from './listening-probe.js';
import { withQuery } from './api-path.js';

export interface ClientOptions {
  /** Origin plus optional path prefix, e.g. https://mq.example:15671/rabbit; no credentials. */
  url: string;
  username: string;
  password: string;
  tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer; insecureSkipVerify?: boolean };
  timeouts: { connectMs: number; headersMs: number; bodyMs: number; totalMs: number };
  maxResponseBytes: number;
  /** Requests in flight at once, and the pool's connection count. */
  maxConcurrentRequests: number;
  /** Cleans every text taken from an answer; by default it knows username and password. */
  redactor?: Redactor;
}

/**
 * Which bound a request waits behind. `shared` is every list and record request; `overview` and
 * `health` have a connection of their own each, so a slow list never delays the request that
 * decides rabbitmq_up or a health check.
 */
export type Lane = 'shared' | 'overview' | 'health';

/** Connections reserved beyond max_concurrent_requests: one per lane other than `shared`. */
export const RESERVED_CONNECTIONS = 2;

export interface RequestOptions {
  signal?: AbortSignal;
  lane?: Lane;
  /**
   * A deadline of this request alone, from when it is sent (not while it waits for a free
   * connection), shorter than target.timeouts.request: one vhost's list within a poll.
   */
  timeoutMs?: number;
  /**
   * Statuses besides 2xx whose JSON body is the answer, read like a 2xx one (the certificate
   * check's 503 lists the expiring certificates).
   */
  answerStatuses?: readonly number[];
}

/** How an answer is read: parsed JSON under the cap of its kind of path, or text under a cap of its own. */
type Reading = { as: 'json' } | { as: 'text'; capBytes: number; capName: string };
const JSON_READING: Reading = { as: 'json' };

/** The only module that speaks HTTP to the broker. Collectors get parsed JSON or a ManagementError. */
export class ManagementClient {
  /**
   * Made once a connection to the broker succeeded, and let go when a request finds no broker (a
   * refused or reset connection) with no other request in flight: a target that is down holds no
   * pool between its polls (an undici Pool is ~20 kB before any connection; 10,000 such targets
   * held 200 MB) and builds none for its first poll (10,000 of those were 190 MB of garbage).
   */
  private pool: Pool | undefined;
  /**
   * Set while there is no pool: each request first asks it whether the broker listens, and a pool
   * is built only then, its first connection the one the probe made.
   */
  private probe: ListeningProbe | undefined;
  /** Connects the probe and the pool alike (undici's connector, with the TLS options and connect timeout). */
  private readonly connector: buildConnector.connector;
  /** The probe's connection, until the pool just built takes it as its first. */
  private handedOver: Socket | undefined;
  private readonly url: URL;
  private readonly origin: string;
  private readonly poolOptions: Pool.Options;
  private inFlight = 0;
  private closed = false;
  private readonly lanes: Record<Lane, LimitFunction>;
  private readonly waiting = new QueuedRequests();
  private readonly authorization: string;
  private readonly prefix: string;
  private readonly options: ClientOptions;
  private readonly redactor: Redactor;
  private readonly peers = new Map<string, ManagementClient>();
  /** Bytes of response bodies read, for the exporter's own metrics. */
  bytesRead = 0;
  requests = 0;
  /** Connection pools built, for the test that a refused broker costs no pool per poll. */
  poolsBuilt = 0;

  constructor(options: ClientOptions) {
    this.options = options;
    this.redactor = options.redactor ?? new Redactor({ username: options.username, secrets: [options.password] });
    const url = new URL(options.url);
    this.url = url;
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
    this.lanes = { shared: pLimit(options.maxConcurrentRequests), overview: pLimit(1), health: pLimit(1) };
    // As many connections as the lanes let requests run at once: a request never waits in the pool.
    this.origin = url.origin;
    this.poolOptions = {
      connections: options.maxConcurrentRequests + RESERVED_CONNECTIONS,
      connectTimeout: options.timeouts.connectMs,
      headersTimeout: options.timeouts.headersMs,
      bodyTimeout: options.timeouts.bodyMs,
      connect: (target, done) => this.connect(target, done),
    };
    this.connector = buildConnector({ ...(url.protocol === 'https:' ? tlsConnectOptions(options) : {}), timeout: options.timeouts.connectMs });
    this.probe = new ListeningProbe(url, this.connector);
  }

  /** Whether it holds a connection pool now. */
  get pooled(): boolean {
    return this.pool !== undefined;
  }

  /** GET an API path (e.g. `/api/overview`) with an optional query; resolves to parsed JSON. */
  getJson<T = unknown>(path: string, query?: Record<string, string | number | boolean>, opts: RequestOptions = {}): Promise<T> {
    return this.get<T>(path, query, opts, JSON_READING);
  }

  /**
   * GET a path whose answer is text (rabbitmq_prometheus's `/metrics/detailed`), refused once over
   * `capBytes` (`capName` says which setting that is, in the error).
   */
  getText(path: string, query: Record<string, string | number | boolean> | undefined, opts: RequestOptions & { capBytes: number; capName: string }): Promise<string> {
    return this.get<string>(path, query, opts, { as: 'text', capBytes: opts.capBytes, capName: opts.capName });
  }

  /**
   * A client of another origin of the same broker (a node's rabbitmq_prometheus listener) with
   * this one's credentials, TLS settings, timeouts and redaction, one request at a time; made once
   * per origin and closed with this one.
   */
  peer(origin: string): ManagementClient {
    let client = this.peers.get(origin);
    if (!client) {
      client = new ManagementClient({ ...this.options, url: origin, redactor: this.redactor, maxConcurrentRequests: 1 });
      this.peers.set(origin, client);
    }
    return client;
  }

  private get<T>(path: string, query: Record<string, string | number | boolean> | undefined, opts: RequestOptions, reading: Reading): Promise<T> {
    const fullPath = withQuery(this.prefix + path, query);
    const limit = this.lanes[opts.lane ?? 'shared'];
    const signal = opts.signal;
    const timeoutMs = Math.min(this.options.timeouts.totalMs, opts.timeoutMs ?? Infinity);
    const answerStatuses = opts.answerStatuses ?? [];
    if (!signal) return limit(() => this.request<T>(fullPath, undefined, timeoutMs, reading, answerStatuses));
    if (signal.aborted) return Promise.reject(new ManagementError('aborted', fullPath, 'cancelled before it was sent'));
    // A request still queued behind the bound settles as soon as its poll is cancelled; when its
    // turn comes it sees the abort and sends nothing.
    return new Promise<T>((resolve, reject) => {
      const queued = this.waiting.add(signal, () => reject(new ManagementError('aborted', fullPath, 'cancelled while waiting for a free connection')));
      limit(() => {
        this.waiting.remove(signal, queued);
        return this.request<T>(fullPath, signal, timeoutMs, reading, answerStatuses);
      }).then(resolve, reject);
    });
  }

  private async request<T>(path: string, callerSignal: AbortSignal | undefined, timeoutMs: number, reading: Reading, answerStatuses: readonly number[]): Promise<T> {
    if (callerSignal?.aborted) throw new ManagementError('aborted', path, 'cancelled before it was sent');
    const deadline = new Deadline(timeoutMs, callerSignal);
    this.inFlight++;
    try {
      return await this.send<T>(path, deadline, callerSignal, reading, answerStatuses);
    } catch (error) {
      if (error instanceof ManagementError && error.kind === 'network' && this.inFlight === 1) this.releasePool();
      throw error;
    } finally {
      this.inFlight--;
      deadline.end();
    }
  }

  private releasePool(): void {
    const pool = this.pool;
    this.pool = undefined;
    pool?.close().catch(() => undefined);
    this.probe ??= new ListeningProbe(this.url, this.connector);
  }

  /** The pool's connector: the probe's connection first, when it is still open; then new ones. */
  private connect(target: buildConnector.Options, done: buildConnector.Callback): Socket {
    const held = this.handedOver;
    this.handedOver = undefined;
    if (held && !held.destroyed) {
      queueMicrotask(() => done(null, held));
      return held;
    }
    return this.connector(target, done) as unknown as Socket;
  }

  /** The pool, built once the broker is known to listen. */
  private async connectedPool(signal: AbortSignal): Promise<Pool> {
    if (this.pool) return this.pool;
    const socket = this.probe ? await this.probe.probe(signal) : undefined;
    this.probe = undefined;
    if (this.closed || this.pool) {
      // Closed meanwhile, or another request built the pool first: this connection is not needed.
      socket?.destroy();
      if (this.closed) throw new undiciErrors.ClientClosedError();
      return this.pool!;
    }
    this.handedOver?.destroy();
    this.handedOver = socket;
    this.pool = new Pool(this.origin, this.poolOptions);
    this.poolsBuilt++;
    return this.pool;
  }

  private async send<T>(path: string, deadline: Deadline, callerSignal: AbortSignal | undefined, reading: Reading, answerStatuses: readonly number[]): Promise<T> {
    const { signal, timeoutMs } = deadline;
    this.requests++;
    let response: Dispatcher.ResponseData;
    try {
      if (this.closed) throw new undiciErrors.ClientClosedError();
      const pool = await this.connectedPool(signal);
      response = await pool.request({
        path,
        method: 'GET',
        // With a bare application/json, RabbitMQ answers 406 (not 404) for a path no plugin serves.
        // rabbitmq_prometheus picks its format by Accept: the classic text format is the one parsed.
        headers: { authorization: this.authorization, accept: reading.as === 'text' ? 'text/plain; version=0.0.4' : 'application/json, */*;q=0.1' },
        signal,
      });
    } catch (error) {
      throw this.translate(error, path, deadline, timeoutMs, callerSignal);
    }
    const { statusCode, body, headers } = response;
    const ok = (statusCode >= 200 && statusCode < 300) || answerStatuses.includes(statusCode);
    const pathname = path.split('?')[0]!;
    const cap = reading.as === 'text' ? reading.capBytes : answerCap(pathname, this.options.maxResponseBytes);
    const capName = reading.as === 'text' ? reading.capName : answerKind(pathname) === 'list' ? 'target.max_response_bytes' : 'the cap of answers that are not lists';
    try {
      const declared = Number(headers['content-length']);
      if (ok && Number.isFinite(declared) && declared > cap) {
        discard(body);
        throw new ManagementError('too_large', path, `answer refused before it was read: it declares ${declared} bytes, over the cap of ${describeBytes(cap)} (${capName})`);
      }
      if (ok && reading.as === 'text') {
        const { text, bytes } = await readText(body, cap, capName);
        this.bytesRead += bytes;
        return text as T;
      }
      if (ok) {
        // Parsed while it arrives, in slices: a big answer never holds the event loop for long.
        const { value, bytes } = await readJson(body, cap, capName);
        this.bytesRead += bytes;
        return value as T;
      }
      const { text, cut } = await this.readCapped(body);
      throw new ManagementError('http_status', path, `HTTP ${statusCode}${describeErrorBody(text, cut, this.redactor)}`, statusCode);
    } catch (error) {
      if (error instanceof ManagementError) throw error;
      if (error instanceof AnswerTooLarge) {
        this.bytesRead += error.bytesRead;
        throw new ManagementError('too_large', path, error.message);
      }
      if (error instanceof MalformedAnswer) {
        this.bytesRead += error.bytesRead;
        // Not the parser's message, nor the error as cause: both quote the body, cut anywhere.
        throw new ManagementError('malformed_json', path, `HTTP ${statusCode} with a body that is not JSON (${describeBadJson(error, this.redactor)})`, statusCode);
      }
      throw this.translate(error, path, deadline, timeoutMs, callerSignal);
    }
  }

  /** An error answer only needs its first bytes, for the log. */
  private async readCapped(body: BodyStream): Promise<{ text: string; cut: boolean }> {
    const cap = 4096;
    const chunks: Buffer[] = [];
    let length = 0;
    let cut = false;
    for await (const chunk of body) {
      if (length + chunk.length > cap) {
        discard(body);
        chunks.push(chunk.subarray(0, cap - length));
        length = cap;
        cut = true;
        break;
      }
      length += chunk.length;
      chunks.push(chunk);
    }
    this.bytesRead += length;
    return { text: Buffer.concat(chunks).toString('utf8'), cut };
  }

  private translate(error: unknown, path: string, deadline: Deadline, timeoutMs: number, callerSignal?: AbortSignal): ManagementError {
    if (error instanceof ManagementError) return error;
    if (callerSignal?.aborted && !deadline.passed) {
      return new ManagementError('aborted', path, 'cancelled: the poll ran past its deadline or the exporter is stopping', undefined, { cause: error });
    }
    if (deadline.passed) {
      return new ManagementError('timeout', path, `no complete answer within ${timeoutMs} ms`, undefined, { cause: error });
    }
    if (
      error instanceof undiciErrors.ConnectTimeoutError ||
      error instanceof undiciErrors.HeadersTimeoutError ||
      error instanceof undiciErrors.BodyTimeoutError
    ) {
      return new ManagementError('timeout', path, this.redactor.excerpt(describeCause(error)), undefined, { cause: error });
    }
    return new ManagementError('network', path, this.redactor.excerpt(describeCause(error)), undefined, { cause: error });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.handedOver?.destroy();
    this.handedOver = undefined;
    await Promise.all([this.pool?.close(), ...[...this.peers.values()].map((peer) => peer.close())]);
  }
}

/**
 * Requests waiting behind a bound, by the signal of the poll that asked for them. Each signal gets
 * one abort listener however many requests share it: a listener per request made a poll of
 * thousands of requests cost O(n²) in EventTarget bookkeeping and printed
 * MaxListenersExceededWarning.
 */
class QueuedRequests {
  private readonly bySignal = new WeakMap<AbortSignal, Set<() => void>>();

  add(signal: AbortSignal, onAbort: () => void): () => void {
    let waiting = this.bySignal.get(signal);
    if (!waiting) {
      const set = new Set<() => void>();
      waiting = set;
      this.bySignal.set(signal, set);
      signal.addEventListener('abort', () => {
        this.bySignal.delete(signal);
        for (const cancel of set) cancel();
        set.clear();
      }, { once: true });
    }
    waiting.add(onAbort);
    return onAbort;
  }

  remove(signal: AbortSignal, onAbort: () => void): void {
    this.bySignal.get(signal)?.delete(onAbort);
  }
}

function tlsConnectOptions(options: ClientOptions) {
  const tls = options.tls ?? {};
  return {
    ca: tls.ca,
    cert: tls.cert,
    key: tls.key,
    rejectUnauthorized: !tls.insecureSkipVerify,
  };
}

/** GET an absolute URL of another listener of `client`'s broker as text, through its peer client of that origin. */
export function peerText(client: ManagementClient, url: string, cap: { bytes: number; name: string }, opts: RequestOptions): Promise<string> {
  const { origin, pathname, search } = new URL(url);
  return client.peer(origin).getText(pathname + search, undefined, { ...opts, capBytes: cap.bytes, capName: cap.name });
}

function describeCause(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    const inner = (error as { cause?: unknown }).cause;
    const innerCode = inner instanceof Error ? (inner as { code?: string }).code : undefined;
    const parts = [code, innerCode, error.message].filter(Boolean);
    return [...new Set(parts)].join(': ');
  }
  return String(error);
}

/**
 * RabbitMQ answers errors as {"error": ..., "reason": ...}; keep a short, single-line, redacted
 * excerpt (the answer may quote the request, Authorization header included).
 */
function describeErrorBody(text: string, cut: boolean, redactor: Redactor): string {
  if (!text) return '';
  let detail = text;
  try {
    const parsed = JSON.parse(text) as { error?: unknown; reason?: unknown };
    detail = [parsed.error, parsed.reason].filter((x) => typeof x === 'string').join(': ') || text;
  } catch {
    /* not JSON: keep the raw excerpt */
  }
  detail = redactor.excerpt(detail, 200, cut && detail === text);
  return detail ? ` (${detail})` : '';
}

function describeBadJson(answer: MalformedAnswer, redactor: Redactor): string {
  const start = redactor.excerpt(answer.head, 100);
  return start ? `${answer.bytesRead} bytes, starting: ${start}` : `${answer.bytesRead} bytes`;
}
