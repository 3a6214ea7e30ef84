// Big and hostile answers through the real client, from the simulated management API: refused
// early (the transfer stops), or parsed in slices while they arrive (the event loop keeps turning).
import { afterEach, describe, expect, it } from 'vitest';
import { ManagementError } from '../../../src/broker/errors.js';
import { ManagementClient } from '../../../src/broker/management-client.js';
import { startSimulator, type Simulator } from '../../support/management-simulator.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(listCap: number): Promise<{ sim: Simulator; client: ManagementClient }> {
  const sim = await startSimulator({ queues: 10, vhosts: 1 });
  const client = new ManagementClient({
    url: sim.url,
    username: sim.username,
    password: sim.password,
    timeouts: { connectMs: 2000, headersMs: 30_000, bodyMs: 30_000, totalMs: 60_000 },
    maxResponseBytes: listCap,
    maxConcurrentRequests: 2,
  });
  cleanups.push(() => sim.close(), () => client.close());
  return { sim, client };
}

async function failure(promise: Promise<unknown>): Promise<ManagementError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error('expected a failure');
  expect(outcome.error).toBeInstanceOf(ManagementError);
  return outcome.error as ManagementError;
}

const MB = 1024 * 1024;

describe('answers over their cap', () => {
  it('a declared 200 MB answer is refused before its body is read, and the transfer stops', async () => {
    const { sim, client } = await setup(20 * MB);
    sim.fault('/api/queues', { kind: 'huge', bytes: 200 * MB, contentLength: true });
    const error = await failure(client.getJson('/api/queues'));
    expect(error.kind).toBe('too_large');
    expect(error.message).toBe(`GET /api/queues: answer refused before it was read: it declares ${200 * MB} bytes, over the cap of 20 MiB (${20 * MB} bytes) (target.max_response_bytes)`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(client.bytesRead).toBe(0);
    // Only what the sockets buffer was written, not the 200 MB.
    expect(sim.bytesSent).toBeLessThan(20 * MB);
  });

  it('an undeclared 200 MB answer is refused once it passes the cap, and the transfer stops', async () => {
    const { sim, client } = await setup(8 * MB);
    sim.fault('/api/queues', { kind: 'huge', bytes: 200 * MB, contentLength: false });
    const error = await failure(client.getJson('/api/queues'));
    expect(error.kind).toBe('too_large');
    expect(error.detail).toBe(`answer refused while it arrived: over the cap of 8 MiB (${8 * MB} bytes) (target.max_response_bytes)`);
    expect(client.bytesRead).toBeGreaterThan(8 * MB);
    expect(client.bytesRead).toBeLessThan(9 * MB);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sim.bytesSent).toBeLessThan(30 * MB);
  });

  it('answers that are not lists are capped at 16 MiB whatever max_response_bytes says', async () => {
    const { sim, client } = await setup(160 * MB);
    sim.fault('/api/overview', { kind: 'huge', bytes: 17 * MB, contentLength: false });
    const error = await failure(client.getJson('/api/overview'));
    expect(error.kind).toBe('too_large');
    expect(error.detail).toContain('over the cap of 16 MiB');
    expect(error.detail).toContain('the cap of answers that are not lists');
  });
});

describe('a big answer within its cap', () => {
  it('is parsed in slices while it arrives: no JSON.parse of the whole body, and the event loop turns', async () => {
    const { sim, client } = await setup(160 * MB);
    sim.fault('/api/queues', { kind: 'huge', bytes: 40 * MB, contentLength: true });
    const parse = JSON.parse;
    let longest = 0;
    JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      longest = Math.max(longest, text.length);
      return parse(text, reviver);
    }) as typeof JSON.parse;
    let turns = 0;
    const ticker = setInterval(() => turns++, 1);
    let list: unknown[];
    let turnsBeforeEnd = 0;
    try {
      const pending = client.getJson<unknown[]>('/api/queues');
      // Counted while the answer is read; a single JSON.parse at the end would add no turns.
      list = await pending.finally(() => (turnsBeforeEnd = turns));
    } finally {
      JSON.parse = parse;
      clearInterval(ticker);
    }
    expect(list.length).toBeGreaterThan(100_000);
    expect(client.bytesRead).toBe(40 * MB);
    expect(longest).toBeLessThan(2 * MB);
    expect(turnsBeforeEnd).toBeGreaterThan(10);
  });

  it('malformed and truncated big answers fail as such', async () => {
    // 5,000 queues with full statistics: ~7 MB, parsed in slices.
    const big = await startSimulator({ queues: 5000, vhosts: 1 });
    cleanups.push(() => big.close());
    const bigClient = new ManagementClient({
      url: big.url,
      username: big.username,
      password: big.password,
      timeouts: { connectMs: 2000, headersMs: 30_000, bodyMs: 30_000, totalMs: 60_000 },
      maxResponseBytes: 160 * MB,
      maxConcurrentRequests: 2,
    });
    cleanups.push(() => bigClient.close());
    big.fault('/api/queues', { kind: 'malformed' });
    expect((await failure(bigClient.getJson('/api/queues'))).kind).toBe('malformed_json');
    big.fault('/api/queues', { kind: 'truncated' });
    expect((await failure(bigClient.getJson('/api/queues'))).kind).toBe('network');
    big.fault('/api/queues', undefined);
    expect(await bigClient.getJson('/api/queues')).toHaveLength(5000);
  }, 30_000);
});
