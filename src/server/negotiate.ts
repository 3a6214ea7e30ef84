import type { Format } from '../exposition/exposition.js';

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

/**
 * Whether the scraper takes gzip: named with a q above 0, or matched by `*` with a q above 0 when
 * gzip itself is not named (RFC 9110, 12.5.3).
 */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of acceptEncoding.split(',')) {
    const [rawCoding, ...params] = part.trim().split(';');
    const coding = rawCoding?.trim().toLowerCase();
    if (coding === 'gzip') gzip = qValue(params);
    else if (coding === '*') any = qValue(params);
  }
  return (gzip ?? any ?? 0) > 0;
}
