// How the management API is addressed: paths with every segment encoded, query strings, `columns=`.

export function withQuery(path: string, query?: Record<string, string | number | boolean>): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) params.set(key, String(value));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** `/api/queues/%2F/name`: every segment encoded, so vhost `/` and names with `%` or spaces work. */
export function apiPath(...segments: string[]): string {
  return `/api/${segments.map((s, i) => (i === 0 ? s : encodePathSegment(s))).join('/')}`;
}

/** The `columns=` value that narrows a list answer to these fields: each once, in order. */
export function columnsParam(fields: Iterable<string>): string {
  return [...new Set(fields)].join(',');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * encodeURIComponent, except that a lone UTF-16 surrogate (JSON can carry `"\ud800"`, UTF-8
 * cannot), on which encodeURIComponent throws "URI malformed", is sent as the three bytes a
 * broker holding such a name in its binary would have (`%ED%A0%80`): the request goes out, and
 * the broker answers it or says 404.
 */
function encodePathSegment(segment: string): string {
  let out = '';
  let start = 0;
  for (const match of segment.matchAll(LONE_SURROGATE)) {
    const unit = match[0].charCodeAt(0);
    const bytes = [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)];
    out += encodeURIComponent(segment.slice(start, match.index)) + bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    start = match.index + 1;
  }
  return out + encodeURIComponent(segment.slice(start));
}
