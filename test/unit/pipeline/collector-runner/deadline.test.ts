// The collector runner's per-poll deadline, with real timers kept short.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManagementClient } from '../../../../src/broker/management-client.js';
import { serve, sleep } from '../../../support/http-server.js';
import { M, harness } from './fake-collector.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('CollectorRunner deadline (real timers, short)', () => {
  it('aborts requests of a poll that passes its deadline; the failure names the deadline', async () => {
    const server = await serve(() => undefined); // never answers
    const client = new ManagementClient({
      url: server.url,
      username: 'u',
      password: 'p',
      timeouts: { connectMs: 2000, headersMs: 10_000, bodyMs: 10_000, totalMs: 10_000 },
      maxResponseBytes: 1024,
      maxConcurrentRequests: 2,
    });
    try {
      const { runner, state } = harness(
        async (ctx) => {
          await ctx.api.get('/api/slow', { columns: 'a,b' });
        },
        // Long enough for the request to reach the server on a loaded machine (50 ms was not:
        // the deadline sometimes passed before the connection was made, and nothing was sent).
        { timeoutMs: 1500 },
        { client },
      );
      await runner.pollOnce();
      const c = state.collectors.get('test')!;
      expect(c.lastSuccess).toBe(false);
      expect(c.lastError).toBe("/api/slow: the poll's deadline of 1500 ms passed");
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
      await client.close();
    }
  });

  it('getOptional turns a 404 into undefined but other errors into a failure', async () => {
    const server = await serve((req, res) => {
      res.writeHead(req.url === '/api/missing' ? 404 : 500, { 'content-type': 'application/json' });
      res.end('{"error":"Object Not Found","reason":"Not Found"}');
    });
    const client = new ManagementClient({
      url: server.url,
      username: 'u',
      password: 'p',
      timeouts: { connectMs: 2000, headersMs: 5000, bodyMs: 5000, totalMs: 5000 },
      maxResponseBytes: 1024,
      maxConcurrentRequests: 2,
    });
    try {
      const seen: unknown[] = [];
      const { runner, state } = harness(
        async (ctx) => {
          seen.push(await ctx.api.getOptional('/api/missing'));
          await ctx.api.getOptional('/api/broken');
        },
        {},
        { client },
      );
      await runner.pollOnce();
      expect(seen).toEqual([undefined]);
      expect(state.collectors.get('test')!.lastError).toBe('/api/broken: HTTP 500 (Object Not Found: Not Found)');
    } finally {
      await server.close();
      await client.close();
    }
  });

  it('a collect that ignores the signal but returns after the deadline is still a failure', async () => {
    const { runner, state } = harness(
      async (ctx) => {
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
        ctx.sink.add(M.v, [], 1);
      },
      { timeoutMs: 50 },
    );
    await runner.pollOnce();
    const c = state.collectors.get('test')!;
    expect(c.lastSuccess).toBe(false);
    expect(c.lastError).toBe('poll ran past its deadline of 50 ms');
    expect(c.families).toEqual([]);
  });

  // A bug since fixed, kept as a regression test (src/pipeline/collector-runner.ts pollOnce): the deadline only reaches the collect
  // through ctx.signal. A collect awaiting something that does not observe the signal never
  // settles, so pollOnce never returns: the poll is never recorded as failed and the runner
  // never schedules another poll (that collector is silently dead until restart). The poll
  // should be raced against the deadline.
  it('a collect that hangs without observing the signal is failed at the deadline', async () => {
    const { runner, state } = harness(() => new Promise<void>(() => undefined), { timeoutMs: 50 });
    const outcome = await Promise.race([runner.pollOnce().then(() => 'returned'), sleep(1000).then(() => 'still hanging')]);
    expect(outcome).toBe('returned');
    expect(state.collectors.get('test')!.lastError).toContain('deadline of 50 ms');
  });
});
