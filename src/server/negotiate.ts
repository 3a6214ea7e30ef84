import type { Format } from '../snapshot/exposition.js';

/** OpenMetrics only when the scraper asks for it (Prometheus does, with a q-value). */
export function chooseFormat(accept: string | undefined): Format {
  if (!accept) return 'text';
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().split(';');
    if (type?.trim().toLowerCase() !== 'application/openmetrics-text') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) continue;
    return 'openmetrics';
  }
  return 'text';
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
