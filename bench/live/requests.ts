// The live window's requests: grouped by kind for the report, and replayed at their moments.
import { Pool } from 'undici';
import type { RecordedRequest } from '../run/exporter-process.js';
import { drain, sleep } from '../run/util.js';

/** A request's path with the vhost or node in it and the query's values left out: `/api/queues/{…}?columns&disable_stats`. */
export function pathKind(requestPath: string): string {
  const [pathname = '', query = ''] = requestPath.split('?');
  const parts = pathname.split('/');
  // /api/<endpoint>/<name>[/...]: the name part varies per vhost or node.
  const kind = parts.length > 3 ? [...parts.slice(0, 3), '{…}', ...parts.slice(4)].join('/') : pathname;
  const keys = query
    .split('&')
    .filter(Boolean)
    .map((pair) => pair.split('=')[0])
    .sort();
  return keys.length > 0 ? `${kind}?${keys.join('&')}` : kind;
}

/**
 * GETs each recorded request at its offset from `windowStart` (as many in flight as the live
 * exporter had), reading every body; resolves at the end of the window or when the last answer
 * is read, whichever is later.
 */
export async function timedReplay(url: string, auth: string, requests: readonly RecordedRequest[], windowStart: number, windowS: number): Promise<void> {
  const pool = new Pool(url, { connections: 8, headersTimeout: 300_000, bodyTimeout: 300_000 });
  const started = Date.now();
  const windowOver = sleep(windowS * 1000);
  try {
    await Promise.all(
      requests.map(async (r) => {
        await sleep(Math.max(0, started + (r.start - windowStart) - Date.now()));
        const res = await pool.request({ path: r.path, method: 'GET', headers: { authorization: auth, accept: 'application/json' } });
        await drain(res.body);
      }),
    );
    await windowOver;
  } finally {
    await pool.close();
  }
}
