// Start-up: configuration from the environment, seed validation, graceful close.

import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { startStorefront } from '../src/server.js';
import { ConfigError, DEFAULT_BODY_LIMIT, loadConfig } from '../src/config.js';
import { verifyPassword } from '../src/password.js';
import { loadSeed, parseSeed, SeedError } from '../src/seed.js';
import { dumpDb, http, SEED_PATH, TEST_SCRYPT, toJson, transaction, withoutField } from './support.js';

const LOCAL = { auth: { kind: 'none-local-only' }, scrypt: TEST_SCRYPT } as const;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'storefront-start-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadConfig', () => {
  const TOKEN = 'a-long-random-api-token-0123456789';

  it('defaults: port 8080, all interfaces, ./storefront-data/transactions.db (importing transactions.json), 1 MiB, no seed', () => {
    expect(loadConfig({ STOREFRONT_TOKENS: TOKEN }, '/srv/app')).toEqual({
      port: 8080,
      host: undefined,
      dbPath: '/srv/app/storefront-data/transactions.db',
      importJsonPath: '/srv/app/storefront-data/transactions.json',
      seedPath: undefined,
      bodyLimit: DEFAULT_BODY_LIMIT,
      auth: { kind: 'tokens', tokens: [TOKEN] },
      maxConnections: 1000,
    });
    expect(DEFAULT_BODY_LIMIT).toBe(1048576);
  });

  it('reads every STOREFRONT_ variable', async () => {
    const tokensFile = join(dir, 'tokens');
    await writeFile(tokensFile, `# one per line\n${TOKEN}\n\nsecond-token-abcdefghijkl\n`);
    expect(
      loadConfig(
        {
          STOREFRONT_PORT: '18080',
          STOREFRONT_DB: 'data/db.sqlite',
          STOREFRONT_IMPORT_JSON: 'old.json',
          STOREFRONT_SEED: '/abs/seed.json',
          STOREFRONT_BODY_LIMIT: '2048',
          STOREFRONT_HOST: '10.0.0.5',
          STOREFRONT_TOKENS_FILE: tokensFile,
          STOREFRONT_MAX_CONNECTIONS: '50',
        },
        '/srv/app',
      ),
    ).toEqual({
      port: 18080,
      host: '10.0.0.5',
      dbPath: '/srv/app/data/db.sqlite',
      importJsonPath: '/srv/app/old.json',
      seedPath: '/abs/seed.json',
      bodyLimit: 2048,
      auth: { kind: 'tokens', tokens: [TOKEN, 'second-token-abcdefghijkl'] },
      maxConnections: 50,
    });
  });

  it.each([
    [{ STOREFRONT_PORT: 'http' }, 'STOREFRONT_PORT'],
    [{ STOREFRONT_PORT: '70000' }, 'STOREFRONT_PORT'],
    [{ STOREFRONT_BODY_LIMIT: '0' }, 'STOREFRONT_BODY_LIMIT'],
    [{ STOREFRONT_BODY_LIMIT: '1mb' }, 'STOREFRONT_BODY_LIMIT'],
    [{ STOREFRONT_MAX_CONNECTIONS: '-1' }, 'STOREFRONT_MAX_CONNECTIONS'],
    [{ STOREFRONT_DB: 'storefront-data/transactions.json' }, 'STOREFRONT_IMPORT_JSON'],
  ])('rejects %j', (env, name) => {
    const withToken = { STOREFRONT_TOKENS: TOKEN, ...env };
    expect(() => loadConfig(withToken)).toThrow(ConfigError);
    expect(() => loadConfig(withToken)).toThrow(name);
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
    const dbPath = join(dir, 'db', 'transactions.db');
    const start = startStorefront({ port: 0, host: '127.0.0.1', dbPath, seedPath, bodyLimit: 1024, ...LOCAL });
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
      startStorefront({ port: 0, host: '127.0.0.1', dbPath: join(dir, 'db.db'), seedPath: join(dir, 'nope.json'), bodyLimit: 1024, ...LOCAL }),
    ).rejects.toThrow('cannot read seed file');
  });
});

describe('start and close', () => {
  it('creates the db folder, loads the seed into an empty store, and closes gracefully while a request is in flight', async () => {
    const dbPath = join(dir, 'deep', 'er', 'transactions.db');
    const running = await startStorefront({ port: 0, host: '127.0.0.1', dbPath, seedPath: SEED_PATH, bodyLimit: 1 << 20, ...LOCAL });
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
    expect(dumpDb(dbPath)).toContain('"type":"in-flight"');
    // Closed for good: a new connection is refused.
    await expect(http(running.port, { path: '/metrics' })).rejects.toThrow('ECONNREFUSED');
  });

  it('a port already in use refuses the start', async () => {
    const a = await startStorefront({ port: 0, host: '127.0.0.1', dbPath: join(dir, 'a.db'), bodyLimit: 1024, ...LOCAL });
    try {
      await expect(startStorefront({ port: a.port, host: '127.0.0.1', dbPath: join(dir, 'b.db'), bodyLimit: 1024, ...LOCAL })).rejects.toThrow('EADDRINUSE');
    } finally {
      await a.close();
    }
  });
});

describe('seed passwords are hashed after the port opens', () => {
  async function writeSeed(count: number): Promise<string> {
    const seedPath = join(dir, 'big-seed.json');
    await writeFile(seedPath, `[${Array.from({ length: count }, (_, i) => toJson(transaction(BigInt(i + 1), { password: `pw-${i}` }))).join(',')}]`);
    return seedPath;
  }

  it('200 entries at the production cost: the port opens with every hash still pending', async () => {
    const seedPath = await writeSeed(200);
    const started = Date.now();
    const running = await startStorefront({ port: 0, host: '127.0.0.1', dbPath: join(dir, 'db.db'), seedPath, bodyLimit: 1 << 20, auth: { kind: 'none-local-only' } });
    try {
      // Hashing 200 passwords first would take minutes; none has been hashed yet.
      expect(running.seeded).toBe(200);
      expect(await running.store.idsWithoutPassword(undefined, 1000)).toHaveLength(200);
      expect(Date.now() - started).toBeLessThan(10_000);
      const res = await http(running.port, { path: '/api/transactions/7' });
      expect(res.status).toBe(200);
    } finally {
      await running.close();
    }
  }, 30_000);

  it('the hashes land in the background; an edit made meanwhile wins; a restart resumes what is left', async () => {
    const seedPath = await writeSeed(30);
    const dbPath = join(dir, 'db.db');
    const first = await startStorefront({ port: 0, host: '127.0.0.1', dbPath, seedPath, bodyLimit: 1 << 20, ...LOCAL });
    const edited = await http(first.port, {
      method: 'PUT',
      path: '/api/transactions/30',
      headers: { 'Content-Type': 'application/json' },
      body: toJson(transaction(30n, { password: 'set-by-an-edit' })),
    });
    expect(edited.status).toBe(200);
    await first.close(); // stops the hashing part-way (or after it finished)
    const second = await startStorefront({ port: 0, host: '127.0.0.1', dbPath, seedPath, bodyLimit: 1 << 20, ...LOCAL });
    try {
      expect(second.seeded).toBe(0);
      await second.seedPasswords;
      expect(await second.store.idsWithoutPassword(undefined, 1000)).toEqual([]);
      expect(await verifyPassword('pw-3', (await second.store.get(4n))?.passwordHash as string)).toBe(true);
      expect(await verifyPassword('set-by-an-edit', (await second.store.get(30n))?.passwordHash as string)).toBe(true);
    } finally {
      await second.close();
    }
  }, 30_000);
});
