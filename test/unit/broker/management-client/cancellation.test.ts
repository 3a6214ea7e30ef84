// The management client's requests cancelled: one abort, and many requests sharing one poll's signal.
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { sleep } from '../../../support/http-server.js';
import { cleanups, server, client, failure, expectKind, json } from './client-fixtures.js';

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
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
