// The storefront's own Prometheus metrics, on its own Registry (never prom-client's
// global default registry, which belongs to whoever else runs in the process).

import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export interface StorefrontMetrics {
  readonly registry: Registry;
  observe(method: string, route: string, status: number, seconds: number): void;
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function createMetrics(): StorefrontMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'storefront_' });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'storefront_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'storefront_http_request_duration_seconds',
    help: 'Time from request start to the end of the response, by method, route template and status code',
    labelNames,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    registry,
    observe(method, route, status, seconds) {
      // Bounded label values: unknown methods collapse to "other"; routes are templates.
      const labels = { method: KNOWN_METHODS.has(method) ? method : 'other', route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
  };
}
