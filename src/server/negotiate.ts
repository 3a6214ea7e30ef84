import type { Format } from '../snapshot/exposition.js';

/**
 * OpenMetrics when the scraper asks for it at least as much as for the text format (Prometheus
 * orders its Accept by preference with q-values); the text format otherwise.
 */
export function chooseFormat(accept: string | undefined): Format {
  if (!accept) return 'text';
  let openMetrics = 0;
  let text = 0;
  for (const part of accept.split(',')) {
    const [rawType, ...params] = part.trim().split(';');
    const type = rawType?.trim().toLowerCase();
    const q = qValue(params);
    if (type === 'application/openmetrics-text') openMetrics = Math.max(openMetrics, q);
    else if (type === 'text/plain' || type === 'text/*' || type === '*/*') text = Math.max(text, q);
  }
  return openMetrics > 0 && openMetrics >= text ? 'openmetrics' : 'text';
}

function qValue(params: string[]): number {
  const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
  if (!q) return 1;
  const value = Number(q.slice(2));
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 1;
}

export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';');
    if (coding?.trim().toLowerCase() !== 'gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}
