// Start-up: configuration from the environment, seed validation, graceful close.

import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { startStorefront } from '../src/app.js';
import { ConfigError, DEFAULT_BODY_LIMIT, loadConfig } from '../src/config.js';
import { loadSeed, parseSeed, SeedError } from '../src/seed.js';
import { http, SEED_PATH, toJson, transaction, withoutField } from './support.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'storefront-start-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadConfig', () => {
  it('defaults: port 8080, ./storefront-data/transactions.json, 1 MiB, no seed', () => {
    expect(loadConfig({}, '/srv/app')).toEqual({
      port: 8080,
      host: undefined,
      dbPath: '/srv/app/storefront-data/transactions.json',
      seedPath: undefined,
      bodyLimit: DEFAULT_BODY_LIMIT,
    });
    expect(DEFAULT_BODY_LIMIT).toBe(1048576);
  });

  it('reads every STOREFRONT_ variable', () => {
    expect(
      loadConfig(
        { STOREFRONT_PORT: '18080', STOREFRONT_DB: 'data/db.json', STOREFRONT_SEED: '/abs/seed.json', STOREFRONT_BODY_LIMIT: '2048', STOREFRONT_HOST: '127.0.0.1' },
        '/srv/app',
      ),
    ).toEqual({ port: 18080, host: '127.0.0.1', dbPath: '/srv/app/data/db.json', seedPath: '/abs/seed.json', bodyLimit: 2048 });
  });

  it.each([
    [{ STOREFRONT_PORT: 'http' }, 'STOREFRONT_PORT'],
    [{ STOREFRONT_PORT: '70000' }, 'STOREFRONT_PORT'],
    [{ STOREFRONT_BODY_LIMIT: '0' }, 'STOREFRONT_BODY_LIMIT'],
    [{ STOREFRONT_BODY_LIMIT: '1mb' }, 'STOREFRONT_BODY_LIMIT'],
  ])('rejects %j', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});

describe('seed file', () => {
  it('the fixture is valid: three transactions with exact big ids', async () => {
    const seed = await loadSeed(SEED_PATH);
    expect(seed.map((t) => t.id)).toEqual([1n, 9007199254740993n, 9223372036854775807n]);
    expect(seed[2]?.user.id).toBe(-9223372036854775808n);
  });

  it('an invalid entry refuses the start, naming the entry, its id and every problem', async () => {
    const good = toJson(transaction(1n));
    const bad = toJson(withoutField(transaction(2n), ['user', 'email'])).replace('"type":"purchase"', '"type":7');
    const seedPath = join(dir, 'seed.json');
    await writeFile(seedPath, `[${good},${bad}]`);
    const dbPath = join(dir, 'db', 'transactions.json');
    const start = startStorefront({ port: 0, host: '127.0.0.1', dbPath, seedPath, bodyLimit: 1024 });
    await expect(start).rejects.toThrow(SeedError);
    await expect(start).rejects.toThrow(
      `seed file ${seedPath}: entry 1 (id 2) is invalid: $[1].type: expected string, got number; $[1].user.email: missing required field`,
    );
    // Nothing was written.
    await expect(readFile(dbPath, 'utf8')).rejects.toThrow('ENOENT');
  });

  it.each([
    ['{"not":"an array"}', 'must hold a JSON array of Transactions'],
    ['[1,', 'is not valid JSON: unexpected end of input at position 3'],
    ['[1]', 'entry 0 is invalid: $[0]: expected object (Transaction), got number'],
  ])('refuses %s', (text, message) => {
    expect(() => parseSeed(text, 'seed.json')).toThrow(message);
  });

  it('refuses duplicate ids, naming both entries', () => {
    const t = toJson(transaction(9223372036854775807n));
    expect(() => parseSeed(`[${toJson(transaction(3n))},${t},${t}]`, 's.json')).toThrow(
      'seed file s.json: entry 2 (id 9223372036854775807) repeats the id of entry 1',
    );
  });

  it('a missing seed file refuses the start', async () => {
    await expect(
      startStorefront({ port: 0, host: '127.0.0.1', dbPath: join(dir, 'db.json'), seedPath: join(dir, 'nope.json'), bodyLimit: 1024 }),
    ).rejects.toThrow('cannot read seed file');
  });
});

describe('start and close', () => {
  it('creates the db folder, loads the seed into an empty store, and closes gracefully while a request is in flight', async () => {
    const dbPath = join(dir, 'deep', 'er', 'transactions.json');
    const running = await startStorefront({ port: 0, host: '127.0.0.1', dbPath, seedPath: SEED_PATH, bodyLimit: 1 << 20 });
    expect(running.seeded).toBe(3);
    expect(running.port).toBeGreaterThan(0);
    expect(running.dbPath).toBe(dbPath);
    const received = once(running.server, 'request') as Promise<[IncomingMessage, ServerResponse]>;
    const inFlight = http(running.port, {
      method: 'PUT',
      path: '/api/transactions/1',
      headers: { 'Content-Type': 'application/json' },
      body: toJson(transaction(1n, { type: 'in-flight' })),
    });
    // Close once the server has the request, not after a guessed delay: a close before that
    // point rightly drops the not-yet-started connection, and the test would hang or lie.
    const [, response] = await received;
    expect(response.writableEnded).toBe(false);
    await running.close();
    expect((await inFlight).status).toBe(200);
    expect(await readFile(dbPath, 'utf8')).toContain('"type":"in-flight"');
    // Closed for good: a new connection is refused.
    await expect(http(running.port, { path: '/metrics' })).rejects.toThrow('ECONNREFUSED');
  });

  it('a port already in use refuses the start', async () => {
    const a = await startStorefront({ port: 0, host: '127.0.0.1', dbPath: join(dir, 'a.json'), bodyLimit: 1024 });
    try {
      await expect(startStorefront({ port: a.port, host: '127.0.0.1', dbPath: join(dir, 'b.json'), bodyLimit: 1024 })).rejects.toThrow('EADDRINUSE');
    } finally {
      await a.close();
    }
  });
});
