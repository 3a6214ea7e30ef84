// How the benchmark measures: raw replays of recorded paths, the broker's CPU, scrapes.
import { Pool, request } from 'undici';
import type { BrokerHandle } from '../../test/harness/broker/broker.js';
import { sleep, now, cpuSeconds, readBody, drain, onCleanup } from './util.js';

export function brokerPool(broker: BrokerHandle, connections: number): Pool {
  const pool = new Pool(broker.managementUrl, { connections, headersTimeout: 300_000, bodyTimeout: 300_000 });
  onCleanup(() => pool.close());
  return pool;
}

/** GETs `paths` with `concurrency` requests in flight, reading every body (no parsing). */
export async function replay(pool: Pool, auth: string, paths: readonly string[], concurrency: number): Promise<{ seconds: number; bytes: number }> {
  const started = now();
  let bytes = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, paths.length) }, async () => {
      for (let i = next++; i < paths.length; i = next++) {
        const res = await pool.request({ path: paths[i]!, method: 'GET', headers: { authorization: auth, accept: 'application/json' } });
        bytes += await drain(res.body); // any status: the recorded round has the same ones
      }
    }),
  );
  return { seconds: (now() - started) / 1000, bytes };
}

/** Broker CPU rate (CPU-seconds per second) with the traffic running and nobody polling. */
export async function baselineCpu(beamPid: number, seconds: number): Promise<number> {
  const c0 = cpuSeconds(beamPid);
  const t0 = now();
  await sleep(seconds * 1000);
  return (cpuSeconds(beamPid) - c0) / ((now() - t0) / 1000);
}

/** Broker CPU of fn(): gross delta, and net of the background rate over the same wall time. */
export async function brokerCpuOf<T>(beamPid: number, baseline: number, fn: () => Promise<T>): Promise<{ gross: number; net: number; wall: number; result: T }> {
  const c0 = cpuSeconds(beamPid);
  const t0 = now();
  const result = await fn();
  const wall = (now() - t0) / 1000;
  const gross = cpuSeconds(beamPid) - c0;
  return { gross, net: Math.max(0, gross - baseline * wall), wall, result };
}

// ---------------------------------------------------------------------------
// scrapes

export interface Scrape {
  ms: number;
  body: Buffer;
  encoding: string | undefined;
  contentType: string | undefined;
}

export async function scrape(url: string, headers: Record<string, string>): Promise<Scrape> {
  const t0 = now();
  const res = await request(url, { headers, headersTimeout: 120_000, bodyTimeout: 120_000 });
  const body = await readBody(res.body);
  const ms = now() - t0;
  if (res.statusCode !== 200) throw new Error(`${url}: HTTP ${res.statusCode}`);
  return { ms, body, encoding: res.headers['content-encoding'] as string | undefined, contentType: res.headers['content-type'] as string | undefined };
}

export function countSeries(text: string): number {
  let n = 0;
  for (const line of text.split('\n')) if (line !== '' && line[0] !== '#') n++;
  return n;
}
