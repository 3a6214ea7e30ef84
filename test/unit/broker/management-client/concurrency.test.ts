// The management client's lanes, its bound on concurrent requests, and the paths it asks for.
import { afterEach, describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { apiPath, withQuery } from '../../../../src/broker/api-path.js';
import { sleep } from '../../../support/http-server.js';
import { cleanups, server, client, json } from './client-fixtures.js';

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

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
