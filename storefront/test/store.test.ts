// Storage: persistence across restarts, atomic files, serialised concurrent
// writes, and If-Match / ETag.

import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterEach, describe, it, expect } from 'vitest';
import { type JsonNumber, JsonObject, parseJson } from '../src/json.js';
import { validateTransaction, type Transaction } from '../src/schema.js';
import { SqliteTransactionStore } from '../src/sqlite-store.js';
import { publicPart, StoreCorruptError } from '../src/store.js';
import { computeEtag, parseIfMatch, preconditionHolds } from '../src/etag.js';
import { http, SEED_IDS, SEED_PATH, startTestServer, toJson, transaction, type Plain, type TestServer } from './support.js';

const servers: TestServer[] = [];
async function start(options?: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  const s = await startTestServer(options);
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** Parse the db file strictly and return its records by id, with the password field dropped. */
function recordsOf(db: string): Map<string, string> {
  const root = parseJson(db);
  expect(root).toBeInstanceOf(JsonObject);
  const list = (root as JsonObject).fields.get('transactions');
  expect(Array.isArray(list)).toBe(true);
  const out = new Map<string, string>();
  for (const item of list as JsonObject[]) {
    const r = validateTransaction(item);
    expect(r.ok).toBe(true);
    const id = (item.fields.get('id') as JsonNumber).raw;
    expect(out.has(id)).toBe(false);
    if (r.ok) out.set(id, toJson(withoutPassword(r.value)));
  }
  return out;
}

function withoutPassword(tx: Transaction): Plain {
  const { password: _p, ...user } = tx.user;
  return { ...tx, user } as unknown as Plain;
}

/** A valid Transaction as the schema types it (parsed from the test sample). */
function validTx(id: bigint, totalPrice = 1): Transaction {
  const r = validateTransaction(parseJson(toJson(transaction(id, { totalPrice }))));
  if (!r.ok) throw new Error('sample is invalid');
  return r.value;
}

/** The JSON text the service should hold/answer for a transaction sent by a test (password dropped). */
function publicJson(tx: ReturnType<typeof transaction>): string {
  const { password: _p, ...user } = tx.user as { [k: string]: Plain };
  return toJson({ ...tx, user });
}

describe('persistence', () => {
  it('an edit survives a restart on the same file, and the seed is not reloaded over it', async () => {
    const s = await start();
    const edited = transaction(SEED_IDS.past53, { type: 'edited-before-restart', totalPrice: 99.5 });
    const first = await s.put(SEED_IDS.past53, toJson(edited));
    expect(first.status).toBe(200);
    const etag = first.headers.etag as string;

    await s.restart({ seedPath: undefined });
    const afterRestart = recordsOf(await s.readDb());
    expect(afterRestart.get('9007199254740993')).toBe(publicJson(edited));
    expect(afterRestart.size).toBe(3);

    // Read back through the store interface of the restarted process...
    const stored = await s.running.store.get(SEED_IDS.past53);
    expect(stored?.tx.type).toBe('edited-before-restart');
    expect(stored?.tx.totalPrice).toBe(99.5);
    expect(stored?.tx.id).toBe(9007199254740993n);
    // ...and the ETag from before the restart still matches (it is derived from the stored bytes).
    expect(stored?.etag).toBe(etag);
    const again = await s.put(SEED_IDS.past53, toJson(transaction(SEED_IDS.past53, { type: 'after-restart' })), {
      'Content-Type': 'application/json',
      'If-Match': etag,
    });
    expect(again.status).toBe(200);

    // Restarting with the seed again must not overwrite the non-empty store.
    await s.restart({ seedPath: SEED_PATH });
    expect(s.running.seeded).toBe(0);
    expect((await s.running.store.get(SEED_IDS.past53))?.tx.type).toBe('after-restart');
  });

  it('the database file is private (0600): it holds password hashes', async () => {
    const s = await start();
    expect((await stat(s.dbPath)).mode & 0o777).toBe(0o600);
    expect((await s.put(1n, toJson(transaction(1n, { totalPrice: 4 })))).status).toBe(200);
    expect((await stat(`${s.dbPath}-wal`)).mode & 0o777).toBe(0o600);
    expect(recordsOf(await s.readDb()).get('1')).toBe(publicJson(transaction(1n, { totalPrice: 4 })));
  });

  it('refuses a database of a newer schema version, naming both versions', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'storefront-store-'));
    try {
      const path = join(dir, 'db.db');
      SqliteTransactionStore.open(path).close();
      const raw = new Database(path);
      raw.exec('PRAGMA user_version = 99');
      raw.close();
      expect(() => SqliteTransactionStore.open(path)).toThrow(/schema version 99, newer than this storefront's 1/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a row that does not hold a valid transaction is a 500 on read, never a wrong answer', async () => {
    const s = await start();
    const raw = new Database(s.dbPath);
    raw.prepare('UPDATE transactions SET body = ? WHERE id = 1').run('{"id":1}');
    raw.close();
    await expect(s.running.store.get(1n)).rejects.toThrow(StoreCorruptError);
    const res = await http(s.port, { path: '/api/transactions/1' });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.text)).toMatchObject({ status: 500, message: 'internal error' });
  });
});

describe('a full disk', () => {
  it('an edit that does not fit fails with SQLite\'s "database or disk is full", not "cannot rollback", and the store takes the next edit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'storefront-full-'));
    try {
      const store = SqliteTransactionStore.open(join(dir, 'db.db'), { checkpointIntervalMs: 0 });
      const ids = Array.from({ length: 200 }, (_, i) => BigInt(i + 1));
      await store.seedIfEmpty(ids.map((id) => ({ tx: publicPart(validTx(id)), passwordHash: null })));
      // The disk filling up, as SQLite sees it: no page beyond those the database has.
      const db = (store as unknown as { db: Database.Database }).db;
      const pages = (db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
      db.exec(`PRAGMA max_page_count = ${pages}`);
      // Each edit a little longer than its record, so that together they need pages the disk lacks.
      const bigger = (id: bigint) => publicPart({ ...validTx(id), type: `grown-${'x'.repeat(400)}` } as Transaction);
      const edits = ids.map((id) => store.replace(id, bigger(id), { kind: 'keep' }));
      const settled = await Promise.allSettled(edits);
      const reasons = settled.flatMap((r) => (r.status === 'rejected' ? [String((r.reason as Error).message)] : []));
      expect(reasons.length).toBeGreaterThan(0);
      for (const reason of reasons) expect(reason).toMatch(/database or disk is full/);
      db.exec(`PRAGMA max_page_count = ${pages * 1000}`);
      await expect(store.replace(1n, bigger(1n), { kind: 'keep' })).resolves.toMatchObject({ status: 'replaced' });
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('WAL checkpoints', () => {
  it('run in the worker thread: after edits it reports every WAL frame copied into the database', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'storefront-wal-'));
    const store = SqliteTransactionStore.open(join(dir, 'db.db'), { checkpointIntervalMs: 50 });
    try {
      const checkpointer = store.checkpointer;
      if (checkpointer === undefined) throw new Error('no checkpointer');
      await store.seedIfEmpty([{ tx: publicPart(validTx(1n)), passwordHash: null }]);
      const done = new Promise<{ log: number; checkpointed: number }>((resolve) => {
        checkpointer.onCheckpoint = (r) => {
          if (r.checkpointed === r.log) resolve(r);
        };
      });
      for (let i = 0; i < 20; i++) await store.replace(1n, publicPart(validTx(1n, i)), { kind: 'keep' });
      const r = await done;
      expect(r.log).toBeGreaterThan(0);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the old JSON file', () => {
  it('is imported once, when the database is created, hashes and exact ids included', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'storefront-import-'));
    try {
      const legacy = join(dir, 'transactions.json');
      const hash = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
      const line = toJson(transaction(9223372036854775807n, { password: hash, type: 'from-json' }));
      await writeFile(legacy, `{"format":"storefront-transactions/1","transactions":[\n${line}\n]}\n`);
      const s = await start({ seedPath: undefined, importJsonPath: legacy, dir });
      expect(s.running.imported).toBe(1);
      expect(recordsOf(await s.readDb()).get('9223372036854775807')).toBe(publicJson(transaction(9223372036854775807n, { type: 'from-json' })));
      expect((await s.running.store.get(9223372036854775807n))?.passwordHash).toBe(hash);
      // Edited, then restarted with the file still there: not imported again.
      expect((await s.put(9223372036854775807n, toJson(transaction(9223372036854775807n, { type: 'edited' })))).status).toBe(200);
      await s.restart({});
      expect(s.running.imported).toBe(0);
      expect((await s.running.store.get(9223372036854775807n))?.tx.type).toBe('edited');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a broken file stops the start-up and creates nothing (the import is retried next time)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'storefront-import-'));
    try {
      const legacy = join(dir, 'transactions.json');
      await writeFile(legacy, `{"format":"storefront-transactions/1","transactions":[${toJson(transaction(1n))}]}`);
      await expect(startTestServer({ seedPath: undefined, importJsonPath: legacy, dir })).rejects.toThrow(
        '$.transactions[0].user.password is not a scrypt hash',
      );
      const raw = new Database(join(dir, 'data', 'transactions.db'));
      expect((raw.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(0);
      raw.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('concurrent edits', () => {
  it('50 parallel PUTs to the same and to different ids: all 200, file valid, every record one of the versions sent, none lost', async () => {
    const s = await start();
    const ids = [SEED_IDS.small, SEED_IDS.past53, SEED_IDS.max];
    const sent = new Map<string, Set<string>>(ids.map((id) => [id.toString(), new Set<string>()]));
    const requests = Array.from({ length: 50 }, (_, i) => {
      // Half go to id 1, the rest are spread over all three ids.
      const id = i < 25 ? SEED_IDS.small : (ids[i % 3] as bigint);
      const tx = transaction(id, { type: `version-${i}`, totalPrice: i, password: `pw-${i}` });
      sent.get(id.toString())?.add(publicJson(tx));
      return s.put(id, toJson(tx)).then((res) => ({ id, res }));
    });
    const results = await Promise.all(requests);
    for (const { res } of results) expect(res.status).toBe(200);

    const records = recordsOf(await s.readDb());
    expect([...records.keys()].sort()).toEqual(['1', '9007199254740993', '9223372036854775807']);
    for (const [id, versions] of sent) {
      expect(versions.size).toBeGreaterThan(0);
      expect(versions.has(records.get(id) as string)).toBe(true);
    }
    // The last answer for each id (in completion order of the queue) is what is stored:
    // every 200 answer carried a distinct ETag, and the final stored ETag is one of them.
    const etags = results.map((r) => r.res.headers.etag as string);
    expect(new Set(etags).size).toBe(50);
    for (const id of ids) {
      const stored = await s.running.store.get(id);
      expect(etags).toContain(stored?.etag);
    }
  }, 30_000);

  it('50 parallel PUTs to 50 different ids plus 50 to one id: every distinct-id edit is kept exactly', async () => {
    const seedDir = await mkdtemp(join(tmpdir(), 'storefront-seed-'));
    try {
      const seedPath = join(seedDir, 'seed.json');
      const ids = Array.from({ length: 50 }, (_, i) => 9007199254740993n + BigInt(i) * 1000n);
      await writeFile(seedPath, `[${ids.map((id) => toJson(transaction(id, { type: 'seeded' }))).join(',')}]`);
      const s = await start({ seedPath, scrypt: { N: 1024, r: 8, p: 1 } });
      expect(s.running.seeded).toBe(50);
      const hot = ids[0] as bigint;
      const hotVersions = new Set<string>();
      const results = await Promise.all([
        ...ids.slice(1).map((id) => s.put(id, toJson(transaction(id, { type: `edit-${id}` })))),
        ...Array.from({ length: 50 }, (_, i) => {
          const tx = transaction(hot, { type: `hot-${i}`, totalPrice: i });
          hotVersions.add(publicJson(tx));
          return s.put(hot, toJson(tx));
        }),
      ]);
      expect(results.map((r) => r.status)).toEqual(Array(99).fill(200));
      const records = recordsOf(await s.readDb());
      expect(records.size).toBe(50);
      for (const id of ids.slice(1)) expect(records.get(id.toString())).toBe(publicJson(transaction(id, { type: `edit-${id}` })));
      expect(hotVersions.has(records.get(hot.toString()) as string)).toBe(true);
    } finally {
      await rm(seedDir, { recursive: true, force: true });
    }
  }, 30_000);

  it('parallel PUTs carrying the same If-Match: exactly one wins, the rest get 412', async () => {
    const s = await start();
    const first = await s.put(1n, toJson(transaction(1n)));
    const etag = first.headers.etag as string;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        s.put(1n, toJson(transaction(1n, { type: `racer-${i}` })), { 'Content-Type': 'application/json', 'If-Match': etag }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412, 412, 412, 412, 412, 412]);
    const winner = results.find((r) => r.status === 200);
    expect((await s.running.store.get(1n))?.etag).toBe(winner?.headers.etag);
  });
});

describe('ETag / If-Match', () => {
  it('200 carries a strong ETag; a matching If-Match succeeds, a stale one gets 412 and changes nothing', async () => {
    const s = await start();
    const r1 = await s.put(1n, toJson(transaction(1n, { type: 'v1' })));
    expect(r1.status).toBe(200);
    const e1 = r1.headers.etag as string;
    expect(e1).toMatch(/^"[^"]+"$/);

    const r2 = await s.put(1n, toJson(transaction(1n, { type: 'v2' })), { 'Content-Type': 'application/json', 'If-Match': e1 });
    expect(r2.status).toBe(200);
    const e2 = r2.headers.etag as string;
    expect(e2).not.toBe(e1);

    const stale = await s.put(1n, toJson(transaction(1n, { type: 'v3' })), { 'Content-Type': 'application/json', 'If-Match': e1 });
    expect(stale.status).toBe(412);
    expect(stale.headers.etag).toBe(e2); // the current tag, so a client can re-read its state
    expect((await s.running.store.get(1n))?.tx.type).toBe('v2');

    const listed = await s.put(1n, toJson(transaction(1n, { type: 'v4' })), { 'Content-Type': 'application/json', 'If-Match': `"nope", ${e2}` });
    expect(listed.status).toBe(200);
  });

  it('If-Match: * matches any existing record, but never creates one', async () => {
    const s = await start();
    const any = await s.put(1n, toJson(transaction(1n)), { 'Content-Type': 'application/json', 'If-Match': '*' });
    expect(any.status).toBe(200);
    const missing = await s.put(5n, toJson(transaction(5n)), { 'Content-Type': 'application/json', 'If-Match': '*' });
    expect(missing.status).toBe(404);
  });

  it('weak or malformed tags never match (If-Match uses strong comparison)', async () => {
    const s = await start();
    const e = (await s.put(1n, toJson(transaction(1n)))).headers.etag as string;
    for (const header of [`W/${e}`, e.slice(1, -1), '"unterminated']) {
      const res = await s.put(1n, toJson(transaction(1n)), { 'Content-Type': 'application/json', 'If-Match': header });
      expect(res.status).toBe(412);
    }
  });

  it('parseIfMatch / preconditionHolds / computeEtag', () => {
    expect(parseIfMatch(undefined)).toBeUndefined();
    expect(parseIfMatch(' * ')).toEqual({ kind: 'any' });
    expect(parseIfMatch('"a", W/"b" ,"c"')).toEqual({ kind: 'tags', strong: ['"a"', '"c"'] });
    expect(preconditionHolds(parseIfMatch('W/"a"'), '"a"')).toBe(false);
    expect(preconditionHolds(undefined, '"a"')).toBe(true);
    expect(computeEtag('x')).toBe(computeEtag('x'));
    expect(computeEtag('x')).not.toBe(computeEtag('y'));
  });
});
