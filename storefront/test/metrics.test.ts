// GET /metrics: the service's own registry, request counter, latency histogram, default metrics.

import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { register } from 'prom-client';
import { http, startTestServer, toJson, transaction, type TestServer } from './support.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

describe('GET /metrics', () => {
  it('counts requests by method, route template and status, with a latency histogram', async () => {
    expect((await server.put(1n, toJson(transaction(1n)))).status).toBe(200);
    expect((await server.put(1n, '{')).status).toBe(400);
    expect((await server.put(1n, '{')).status).toBe(400);
    expect((await server.put(12345n, toJson(transaction(12345n)))).status).toBe(404);
    expect((await http(server.port, { path: '/nowhere/12345' })).status).toBe(404);
    expect((await http(server.port, { method: 'PURGE', path: '/api/transactions/1' })).status).toBe(405);

    const res = await http(server.port, { path: '/metrics' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const text = res.text;
    const line = (l: string) => expect(text.split('\n')).toContain(l);
    line('storefront_http_requests_total{method="PUT",route="/api/transactions/{id}",status="200"} 1');
    line('storefront_http_requests_total{method="PUT",route="/api/transactions/{id}",status="400"} 2');
    line('storefront_http_requests_total{method="PUT",route="/api/transactions/{id}",status="404"} 1');
    line('storefront_http_requests_total{method="GET",route="unmatched",status="404"} 1');
    line('storefront_http_requests_total{method="other",route="/api/transactions/{id}",status="405"} 1');
    line('storefront_http_request_duration_seconds_count{method="PUT",route="/api/transactions/{id}",status="400"} 2');
    line('storefront_http_request_duration_seconds_bucket{le="+Inf",method="PUT",route="/api/transactions/{id}",status="200"} 1');
    line('storefront_http_request_duration_seconds_bucket{le="0.001",method="PUT",route="/api/transactions/{id}",status="200"} 0'); // scrypt alone takes longer
    // Route labels are templates: no raw ids or unknown paths become label values.
    expect(text).not.toContain('12345');
    // Default process metrics, prefixed.
    expect(text).toMatch(/^storefront_process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^storefront_nodejs_heap_size_used_bytes \d/m);
  });

  it('uses its own registry, never the global default one', async () => {
    expect(server.running.metrics.registry).not.toBe(register);
    const globalText = await register.metrics();
    expect(globalText).not.toContain('storefront_');
    expect(register.getMetricsAsArray().filter((m) => String(m.name).startsWith('storefront_'))).toEqual([]);
  });

  it('a second service in the same process has independent counters (no duplicate-registration error)', async () => {
    const other = await startTestServer();
    try {
      const { text } = await http(other.port, { path: '/metrics' });
      expect(text).toContain('storefront_process_cpu_user_seconds_total');
      expect(text).not.toContain('status="400"');
    } finally {
      await other.stop();
    }
  });

  it('HEAD /metrics works, other methods get 405 with Allow', async () => {
    expect((await http(server.port, { method: 'HEAD', path: '/metrics' })).status).toBe(200);
    const post = await http(server.port, { method: 'POST', path: '/metrics' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });
});
