import { getEventListeners } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { isAbsent } from '../../../src/broker/absence.js';
import { ManagementError, type ManagementErrorKind } from '../../../src/broker/errors.js';
import { apiPath, ManagementClient, withQuery, type ClientOptions } from '../../../src/broker/management-client.js';
import { closedPort, serve, sleep, type TestServer } from '../support/http-server.js';

const USER = 'monitor';
const PASSWORD = 'pa55-Wörd-3c7e';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function server(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const s = await serve(handler);
  cleanups.push(() => s.close());
  return s;
}

function client(url: string, overrides: Partial<ClientOptions> = {}): ManagementClient {
  const c = new ManagementClient({
    url,
    username: USER,
    password: PASSWORD,
    timeouts: { connectMs: 2000, headersMs: 5000, bodyMs: 5000, totalMs: 10_000, ...overrides.timeouts },
    maxResponseBytes: 1024 * 1024,
    maxConcurrentRequests: 2,
    ...overrides,
  });
  // Registered before the server's cleanup runs (LIFO), so the pool closes first.
  cleanups.push(() => c.close().catch(() => undefined));
  return c;
}

async function failure(promise: Promise<unknown>): Promise<ManagementError> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ManagementError);
    return error as ManagementError;
  }
  throw new Error(`expected a ManagementError, but it resolved to ${JSON.stringify(value)}`);
}

function expectKind(error: ManagementError, kind: ManagementErrorKind, path: string): void {
  expect(error.kind, error.message).toBe(kind);
  expect(error.path).toBe(path);
  expect(error.message.startsWith(`GET ${path}: `)).toBe(true);
}

/** Neither the password nor the Authorization header value appears anywhere in the error. */
function expectNoSecret(error: unknown): void {
  const basic = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
  let current: unknown = error;
  const seen = new Set<unknown>();
  while (current !== undefined && current !== null && !seen.has(current)) {
    seen.add(current);
    const texts = [String(current), inspect(current, { depth: Infinity, showHidden: true })];
    try {
      texts.push(JSON.stringify(current) ?? '');
    } catch {
      /* circular: inspect covers it */
    }
    if (current instanceof Error) texts.push(current.message, current.stack ?? '');
    for (const text of texts) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(basic);
    }
    current = (current as { cause?: unknown }).cause;
  }
}

/**
 * Runs fn with the process's uncaughtException listeners (vitest's) swapped for one that
 * records, then waits a little for late 'error' events and puts the listeners back.
 */
async function withUncaughtCaptured(fn: () => Promise<ManagementError>): Promise<{ error: ManagementError; uncaught: unknown[] }> {
  const uncaught: unknown[] = [];
  const saved = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  const record = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', record);
  try {
    const error = await fn();
    await sleep(100);
    return { error, uncaught };
  } finally {
    process.off('uncaughtException', record);
    for (const listener of saved) process.on('uncaughtException', listener);
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

describe('successful answers', () => {
  it('parses a 200 JSON body and sends basic auth and Accept', async () => {
    const s = await server((_req, res) => json(res, 200, { management_version: '3.10.8', object_totals: { queues: 10000 } }));
    const c = client(s.url);
    const body = await c.getJson<{ object_totals: { queues: number } }>('/api/overview');
    expect(body).toEqual({ management_version: '3.10.8', object_totals: { queues: 10000 } });
    expect(s.requests).toHaveLength(1);
    const req = s.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.url).toBe('/api/overview');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${USER}:${PASSWORD}`, 'utf8').toString('base64')}`);
    // JSON first; the */* fallback makes RabbitMQ answer 404 rather than 406 for absent paths.
    expect(req.headers.accept).toBe('application/json, */*;q=0.1');
  });

  it('sends the query string', async () => {
    const s = await server((_req, res) => json(res, 200, []));
    const c = client(s.url);
    await c.getJson('/api/nodes', { columns: 'name,running', memory: true, page: 2 });
    expect(s.requests[0]!.url).toBe('/api/nodes?columns=name%2Crunning&memory=true&page=2');
  });

  it('prepends the path prefix of the URL (with or without a trailing slash)', async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    await client(`${s.url}/rabbit`).getJson('/api/overview');
    await client(`${s.url}/rabbit/`).getJson(apiPath('queues', '/', 'a b%'));
    expect(s.requests.map((r) => r.url)).toEqual(['/rabbit/api/overview', '/rabbit/api/queues/%2F/a%20b%25']);
  });

  it('counts requests and body bytes read', async () => {
    const s = await server((_req, res) => json(res, 200, { a: 'x'.repeat(100) }));
    const c = client(s.url);
    await c.getJson('/api/a');
    await c.getJson('/api/b');
    expect(c.requests).toBe(2);
    expect(c.bytesRead).toBe(2 * JSON.stringify({ a: 'x'.repeat(100) }).length);
  });

  it('reads a chunked body of many pieces', async () => {
    const items = Array.from({ length: 2000 }, (_, i) => ({ name: `q${i}`, messages: i }));
    const text = JSON.stringify(items);
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < text.length; i += 1000) res.write(text.slice(i, i + 1000));
      res.end();
    });
    expect(await client(s.url).getJson('/api/queues')).toEqual(items);
  });
});

describe('HTTP error statuses', () => {
  it('401 → http_status with the path and the broker reason, and no password anywhere', async () => {
    const s = await server((_req, res) => json(res, 401, { error: 'not_authorized', reason: 'Login failed' }));
    const error = await failure(client(s.url).getJson('/api/overview'));
    expectKind(error, 'http_status', '/api/overview');
    expect(error.status).toBe(401);
    expect(error.reason).toBe('http_401');
    expect(error.message).toBe('GET /api/overview: HTTP 401 (not_authorized: Login failed)');
    expectNoSecret(error);
  });

  it('404 → http_status 404, which means absent', async () => {
    const s = await server((_req, res) => json(res, 404, { error: 'Object Not Found', reason: 'Not Found' }));
    const error = await failure(client(s.url).getJson('/api/queues/vh1/doesnotexist'));
    expectKind(error, 'http_status', '/api/queues/vh1/doesnotexist');
    expect(error.status).toBe(404);
    expect(isAbsent(error)).toBe(true);
  });

  it('500 with a RabbitMQ error body keeps a single-line excerpt', async () => {
    const s = await server((_req, res) => json(res, 500, { error: 'x', reason: 'y\nwith   spaces' }));
    const error = await failure(client(s.url).getJson('/api/nodes'));
    expectKind(error, 'http_status', '/api/nodes');
    expect(error.status).toBe(500);
    expect(error.message).toBe('GET /api/nodes: HTTP 500 (x: y with spaces)');
  });

  it('a non-JSON error body is excerpted (200 chars at most, one line)', async () => {
    const s = await server((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end(`<html>\n<body>${'busy '.repeat(600)}</body></html>`);
    });
    const error = await failure(client(s.url).getJson('/api/overview'));
    expectKind(error, 'http_status', '/api/overview');
    expect(error.status).toBe(503);
    const excerpt = /\((.*)\)$/.exec(error.message)?.[1] ?? '';
    expect(excerpt.startsWith('<html> <body>busy busy')).toBe(true);
    expect(excerpt.length).toBe(200);
    expect(error.message).not.toContain('\n');
  });

  // A bug since fixed, kept as a regression test (src/broker/management-client.ts readCapped): for an error status the body is capped
  // at 4096 bytes, but the chunk that crosses the cap is dropped instead of kept up to the
  // cap; an error page that arrives as one chunk over 4 KB leaves no excerpt at all
  // ("GET /api/overview: HTTP 503").
  it('a non-JSON error body over 4 KB still gives an excerpt', async () => {
    const s = await server((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end(`<html>\n<body>${'busy '.repeat(2000)}</body></html>`);
    });
    const error = await failure(client(s.url).getJson('/api/overview'));
    expectKind(error, 'http_status', '/api/overview');
    expect(error.message).toContain('(<html> <body>busy busy');
  });

  it('an error status with an empty body', async () => {
    const s = await server((_req, res) => {
      res.writeHead(502);
      res.end();
    });
    const error = await failure(client(s.url).getJson('/api/overview'));
    expect(error.message).toBe('GET /api/overview: HTTP 502');
    expect(error.reason).toBe('http_502');
  });
});

describe('timeouts', () => {
  it('headers timeout: the server never answers', async () => {
    const s = await server(() => undefined);
    const c = client(s.url, { timeouts: { connectMs: 2000, headersMs: 200, bodyMs: 5000, totalMs: 20_000 } });
    const error = await failure(c.getJson('/api/overview'));
    expectKind(error, 'timeout', '/api/overview');
    expect(error.message).toContain('UND_ERR_HEADERS_TIMEOUT');
    expect(error.reason).toBe('timeout');
    expectNoSecret(error);
  });

  it('body timeout: headers and part of the body, then nothing', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.write('[{"name":"q1"},');
    });
    const c = client(s.url, { timeouts: { connectMs: 2000, headersMs: 5000, bodyMs: 200, totalMs: 20_000 } });
    const error = await failure(c.getJson('/api/queues'));
    expectKind(error, 'timeout', '/api/queues');
    expect(error.message).toContain('UND_ERR_BODY_TIMEOUT');
  });

  it('total deadline: no answer at all within totalMs', async () => {
    const s = await server(() => undefined);
    const c = client(s.url, { timeouts: { connectMs: 2000, headersMs: 20_000, bodyMs: 20_000, totalMs: 200 } });
    const error = await failure(c.getJson('/api/overview'));
    expectKind(error, 'timeout', '/api/overview');
    expect(error.message).toBe('GET /api/overview: no complete answer within 200 ms');
  });

  it('total deadline: a body trickling in slower than the deadline', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const timer = setInterval(() => res.write('1,'), 20);
      res.on('close', () => clearInterval(timer));
    });
    const c = client(s.url, { timeouts: { connectMs: 2000, headersMs: 20_000, bodyMs: 20_000, totalMs: 300 } });
    const error = await failure(c.getJson('/api/queues'));
    expectKind(error, 'timeout', '/api/queues');
    expect(error.message).toContain('within 300 ms');
  });
});

describe('broken transfers', () => {
  it('connection reset mid-body (fewer bytes than content-length) → network', async () => {
    const s = await server((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 5000 });
      res.write('[{"name":"q1","messages":1},');
      setTimeout(() => req.socket.destroy(), 20);
    });
    const error = await failure(client(s.url).getJson('/api/queues'));
    expectKind(error, 'network', '/api/queues');
    expect(error.status).toBeUndefined();
    expectNoSecret(error);
  });

  it('malformed JSON → malformed_json with the status', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('<html>login page</html>');
    });
    const error = await failure(client(s.url).getJson('/api/overview'));
    expectKind(error, 'malformed_json', '/api/overview');
    expect(error.status).toBe(200);
    expect(error.message).toBe('GET /api/overview: HTTP 200 with a body that is not JSON (23 bytes, starting: <html>login page</html>)');
    // JSON.parse's error quotes the body wherever it stopped, past any redaction: it is not kept.
    expect(error.cause).toBeUndefined();
  });

  it('truncated JSON in a complete chunked transfer → malformed_json', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"name":"q1","messages":1},');
      res.end('{"name":"q2","mess');
    });
    const error = await failure(client(s.url).getJson('/api/queues'));
    expectKind(error, 'malformed_json', '/api/queues');
  });

  it('an empty 200 body → malformed_json', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200);
      res.end();
    });
    const error = await failure(client(s.url).getJson('/api/overview'));
    expectKind(error, 'malformed_json', '/api/overview');
  });

  it('declared content-length over the cap → too_large, before reading the body', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4000 });
      res.end(`"${'x'.repeat(3998)}"`);
    });
    const c = client(s.url, { maxResponseBytes: 1000 });
    // See the it.fails test below: this path currently also emits an unhandled 'error' event.
    const { error } = await withUncaughtCaptured(() => failure(c.getJson('/api/queues')));
    expectKind(error, 'too_large', '/api/queues');
    expect(error.message).toBe('GET /api/queues: answer refused before it was read: it declares 4000 bytes, over the cap of 1000 bytes (target.max_response_bytes)');
    expect(c.bytesRead).toBe(0);
  });

  // A bug since fixed, kept as a regression test (src/broker/management-client.ts request, `body.destroy()` after the content-length
  // check): undici's body stream, destroyed without an error and without an 'error'
  // listener, emits RequestAbortedError as an unhandled 'error' event. In the exporter that is
  // an uncaught exception: any broker answer declaring more than max_response_bytes kills the
  // process (main.ts only handles unhandledRejection). Checked with the built client too:
  // the process exits 1 with "Unhandled 'error' event ... UND_ERR_ABORTED".
  it('an oversized declared body does not raise an uncaught exception', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4000 });
      res.end(`"${'x'.repeat(3998)}"`);
    });
    const c = client(s.url, { maxResponseBytes: 1000 });
    const { error, uncaught } = await withUncaughtCaptured(() => failure(c.getJson('/api/queues')));
    expect(error.kind).toBe('too_large');
    expect(uncaught.map((e) => String(e))).toEqual([]);
  });

  it('a chunked body growing over the cap → too_large', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      for (let i = 0; i < 10; i++) res.write(`"${'y'.repeat(300)}",`);
      res.end('1]');
    });
    const c = client(s.url, { maxResponseBytes: 1000 });
    const { error, uncaught } = await withUncaughtCaptured(() => failure(c.getJson('/api/queues')));
    expectKind(error, 'too_large', '/api/queues');
    expect(error.message).toContain('over the cap of 1000 bytes (target.max_response_bytes)');
    expect(uncaught).toEqual([]);
  });

  it('a body exactly at the cap is accepted', async () => {
    const text = `"${'z'.repeat(998)}"`;
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.end(text);
    });
    expect(await client(s.url, { maxResponseBytes: 1000 }).getJson('/api/x')).toBe('z'.repeat(998));
  });

  it('connection refused → network, naming the cause', async () => {
    const port = await closedPort();
    const error = await failure(client(`http://127.0.0.1:${port}`).getJson('/api/overview'));
    expectKind(error, 'network', '/api/overview');
    expect(error.message).toContain('ECONNREFUSED');
    expectNoSecret(error);
  });

  // Issue 24: each of 10,000 targets that were down held a connection pool (~20 kB) between polls.
  it('holds no pool while its broker refuses connections; keeps it while the broker answers; refuses requests once closed', async () => {
    const down = client(`http://127.0.0.1:${await closedPort()}`);
    expect(down.pooled).toBe(false);
    await failure(down.getJson('/api/overview'));
    expect(down.pooled).toBe(false);
    expectKind(await failure(down.getJson('/api/overview')), 'network', '/api/overview');

    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const up = client(s.url);
    expect(await up.getJson('/api/overview')).toEqual({});
    expect(up.pooled).toBe(true);
    await up.close();
    expect(up.pooled).toBe(true);
    expectKind(await failure(up.getJson('/api/overview')), 'network', '/api/overview');
  });
});

describe('cancellation', () => {
  it('an abort while waiting for the answer → aborted', async () => {
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    const s = await server(() => received());
    const controller = new AbortController();
    const pending = client(s.url).getJson('/api/overview', undefined, { signal: controller.signal });
    await arrived;
    controller.abort();
    const error = await failure(pending);
    expectKind(error, 'aborted', '/api/overview');
    expect(error.message).toContain('cancelled');
  });

  it('an already aborted signal → aborted, and nothing is sent', async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    const c = client(s.url);
    const error = await failure(c.getJson('/api/overview', undefined, { signal: AbortSignal.abort() }));
    expectKind(error, 'aborted', '/api/overview');
    expect(error.message).toBe('GET /api/overview: cancelled before it was sent');
    expect(s.requests).toHaveLength(0);
    expect(c.requests).toBe(0);
  });

  it('an abort while the body is being read → aborted', async () => {
    const controller = new AbortController();
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.write('[1,2,');
      setTimeout(() => controller.abort(), 20);
    });
    const error = await failure(client(s.url).getJson('/api/queues', undefined, { signal: controller.signal }));
    expectKind(error, 'aborted', '/api/queues');
  });

  // A bug since fixed, kept as a regression test (src/broker/management-client.ts getJson): the abort signal is only looked at once
  // p-limit runs the request. A request queued behind a hung one ignores its caller's abort
  // until a slot frees (here: until the hung request's 10 s headers timeout), so a poll's
  // deadline cannot cancel requests waiting in the queue.
  it('an abort of a request still queued behind the concurrency bound settles it promptly', async () => {
    const s = await server(() => undefined); // never answers
    const c = client(s.url, { maxConcurrentRequests: 1, timeouts: { connectMs: 2000, headersMs: 10_000, bodyMs: 10_000, totalMs: 10_000 } });
    const hung = c.getJson('/api/hung').catch(() => 'settled');
    const controller = new AbortController();
    const queued = c.getJson('/api/queued', undefined, { signal: controller.signal }).then(
      () => 'resolved',
      (error: unknown) => (error instanceof ManagementError ? error.kind : 'other'),
    );
    await sleep(50);
    controller.abort();
    const outcome = await Promise.race([queued, sleep(1500).then(() => 'still waiting')]);
    await s.close(); // lets the hung request fail at once, so the pool closes quickly
    await hung;
    expect(outcome).toBe('aborted');
  });
});

// Issue 8 / 17: every queued request added its own abort listener to the poll's shared signal:
// Node printed MaxListenersExceededWarning past 10 (raw text, not JSON), and EventTarget's
// bookkeeping made a poll of n requests cost O(n²) (100k listeners: 52 s of frozen event loop).
describe('many requests sharing one poll signal', () => {
  it('a poll of 50 requests prints no warning and adds one abort listener', async () => {
    const s = await server((req, res) => setTimeout(() => json(res, 200, { path: req.url }), 5));
    const c = client(s.url, { maxConcurrentRequests: 2 });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const signal = new AbortController().signal;
      const all = Promise.all(Array.from({ length: 50 }, (_, i) => c.getJson(`/api/r${i}`, undefined, { signal })));
      expect(getEventListeners(signal, 'abort')).toHaveLength(1);
      expect(await all).toHaveLength(50);
      // Warnings are emitted on the next tick.
      await sleep(10);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
  });

  it('20,000 queued requests are cancelled together by one abort, and nothing more is sent', async () => {
    const s = await server(() => undefined); // never answers: everything stays queued
    const c = client(s.url, { maxConcurrentRequests: 2, timeouts: { connectMs: 2000, headersMs: 10_000, bodyMs: 10_000, totalMs: 10_000 } });
    const controller = new AbortController();
    const outcomes = Array.from({ length: 20_000 }, (_, i) =>
      c.getJson(`/api/queues/vh${i}`, undefined, { signal: controller.signal }).then(
        () => 'resolved',
        (error: unknown) => (error instanceof ManagementError ? error.kind : 'other'),
      ),
    );
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await sleep(50);
    controller.abort();
    const kinds = new Set(await Promise.all(outcomes));
    expect(kinds).toEqual(new Set(['aborted']));
    expect(s.requests.length).toBeLessThanOrEqual(2);
  });
});

// Issue 17: a slow /api/queues held every pooled connection, the overview waited past its
// deadline and rabbitmq_up went to 0 while the broker answered /api/overview at once.
describe('lanes', () => {
  it('the overview and health lanes get an answer while every shared connection is held by a stalled list', async () => {
    const s = await server((req, res) => {
      if (req.url?.startsWith('/api/queues')) return; // stalled
      json(res, 200, { path: req.url });
    });
    const c = client(s.url, { maxConcurrentRequests: 2, timeouts: { connectMs: 2000, headersMs: 10_000, bodyMs: 10_000, totalMs: 10_000 } });
    const controller = new AbortController();
    const stalled = Array.from({ length: 6 }, (_, i) =>
      c.getJson(`/api/queues/vh${i}`, undefined, { signal: controller.signal }).catch(() => 'settled'),
    );
    await sleep(50);
    const overview = c.getJson<{ path: string }>('/api/overview', undefined, { lane: 'overview' });
    const health = c.getJson<{ path: string }>('/api/health/checks/alarms', undefined, { lane: 'health' });
    const shared = c.getJson('/api/nodes').then(() => 'answered');
    expect(await Promise.race([overview, sleep(3000).then(() => 'starved')])).toEqual({ path: '/api/overview' });
    expect(await Promise.race([health, sleep(3000).then(() => 'starved')])).toEqual({ path: '/api/health/checks/alarms' });
    // The shared lane is still bounded: the nodes request waits behind the stalled lists.
    expect(await Promise.race([shared, sleep(200).then(() => 'waiting')])).toBe('waiting');
    controller.abort();
    await Promise.all(stalled);
    expect(await shared).toBe('answered');
  });
});

describe('concurrency bound', () => {
  it('never more than maxConcurrentRequests in flight at the server', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const waiting: (() => void)[] = [];
    const s = await server((req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const answer = () => {
        inFlight--;
        json(res, 200, { path: req.url });
      };
      // Hold each answer until a second request is in flight (or 300 ms passed), so the
      // bound is really tested, not just a fast server.
      waiting.push(answer);
      if (inFlight >= 2) while (waiting.length > 0) waiting.shift()!();
      else setTimeout(() => waiting.includes(answer) && waiting.splice(waiting.indexOf(answer), 1) && answer(), 300);
    });
    const c = client(s.url, { maxConcurrentRequests: 2 });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => c.getJson<{ path: string }>(`/api/r${i}`)));
    expect(results.map((r) => r.path)).toEqual(['/api/r0', '/api/r1', '/api/r2', '/api/r3', '/api/r4', '/api/r5']);
    expect(s.requests).toHaveLength(6);
    expect(maxInFlight).toBe(2);
  });

  it('with a bound of 1 the requests are strictly sequential', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const s = await server((_req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        json(res, 200, 1);
      }, 10);
    });
    const c = client(s.url, { maxConcurrentRequests: 1 });
    await Promise.all(Array.from({ length: 5 }, () => c.getJson('/api/x')));
    expect(maxInFlight).toBe(1);
    expect(s.requests).toHaveLength(5);
  });
});

describe('paths', () => {
  it('apiPath encodes every segment after the first', () => {
    expect(apiPath('queues', '/', 'a b%')).toBe('/api/queues/%2F/a%20b%25');
    expect(apiPath('nodes', 'rabbit@vm')).toBe('/api/nodes/rabbit%40vm');
    expect(apiPath('queues', 'vh/1', 'q?#&é')).toBe('/api/queues/vh%2F1/q%3F%23%26%C3%A9');
    expect(apiPath('overview')).toBe('/api/overview');
  });

  it('withQuery', () => {
    expect(withQuery('/api/x')).toBe('/api/x');
    expect(withQuery('/api/x', {})).toBe('/api/x');
    expect(withQuery('/api/x', { a: 'b c', n: 1, t: false })).toBe('/api/x?a=b+c&n=1&t=false');
  });

  it('ManagementError.reason', () => {
    expect(new ManagementError('timeout', '/p', 'd').reason).toBe('timeout');
    expect(new ManagementError('http_status', '/p', 'd', 418).reason).toBe('http_418');
    expect(new ManagementError('network', '/p', 'd').name).toBe('ManagementError');
  });
});
