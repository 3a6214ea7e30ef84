// The built service as real processes on one database: kill -9 in the middle of a burst of
// writes loses no acknowledged write, and two processes editing the same records lose nothing.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'libsql';
import { afterAll, afterEach, beforeAll, describe, it, expect } from 'vitest';
import { SqliteTransactionStore } from '../src/sqlite-store.js';
import { publicPart } from '../src/store.js';
import { validateTransaction } from '../src/schema.js';
import { parseJson } from '../src/json.js';
import { http, toJson, transaction, withoutField } from './support.js';

const HERE = fileURLToPath(new URL('..', import.meta.url));
// One folder per test process: two test runs at once (CI runs two Nodes side by side) never share one.
const BUILD = join(HERE, '.test-build', String(process.pid));
const HASH = 'scrypt$1024$8$1$AAAAAAAAAAAAAAAAAAAAAA$BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';

beforeAll(() => {
  // The processes run the service as shipped: compiled from src/ by the package's own tsconfig.
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(HERE, 'tsconfig.json'), '--outDir', BUILD]);
}, 120_000);

let dir: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'storefront-proc-'));
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(BUILD, { recursive: true, force: true });
});

interface Service {
  child: ChildProcess;
  port: number;
}

async function startService(dbPath: string): Promise<Service> {
  const child = spawn(process.execPath, [join(BUILD, 'main.js')], {
    env: { PATH: process.env.PATH, STOREFRONT_AUTH: 'none-local-only', STOREFRONT_PORT: '0', STOREFRONT_DB: dbPath, STOREFRONT_IMPORT_JSON: join(dir, 'none.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on \S+ port (\d+)/.exec(out);
      if (m !== null) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`storefront exited with ${code}: ${err}`)));
  });
  return { child, port };
}

/** A database holding the given ids (totalPrice 0), built directly through the store. */
async function createDb(name: string, ids: bigint[]): Promise<string> {
  const path = join(dir, name);
  const store = SqliteTransactionStore.open(path);
  await store.seedIfEmpty(ids.map((id) => ({ tx: publicPart(withoutField(transaction(id, { totalPrice: 0 }), ['user', 'password']) as never), passwordHash: HASH })));
  await store.close();
  return path;
}

function storedPrices(dbPath: string): Map<bigint, number> {
  const db = new Database(dbPath);
  try {
    expect((db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check).toBe('ok');
    const out = new Map<bigint, number>();
    for (const row of db.prepare('SELECT body FROM transactions').all() as { body: string }[]) {
      const r = validateTransaction(parseJson(row.body));
      if (!r.ok) throw new Error('invalid row');
      out.set(r.value.id, r.value.totalPrice);
    }
    return out;
  } finally {
    db.close();
  }
}

const edit = (id: bigint, totalPrice: number) => toJson(withoutField(transaction(id, { totalPrice }), ['user', 'password']));
const JSON_PUT = { 'Content-Type': 'application/json' };

describe('kill -9 during a burst of writes', () => {
  it('every acknowledged write is in the database after the crash, and the restarted service serves it', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => BigInt(i + 1));
    const dbPath = await createDb('crash.db', ids);
    const service = await startService(dbPath);
    const acked = new Map<bigint, number>(ids.map((id) => [id, 0]));
    let total = 0;
    let killed = false;
    const exited = once(service.child, 'exit');
    // One writer per id, each sending version 1, 2, 3, … in turn; the process is killed
    // from inside the burst once 300 writes have been acknowledged.
    await Promise.all(
      ids.map(async (id) => {
        for (let version = 1; !killed; version++) {
          const res = await http(service.port, { method: 'PUT', path: `/api/transactions/${id}`, headers: JSON_PUT, body: edit(id, version) }).catch(() => undefined);
          if (res === undefined) return;
          expect(res.status).toBe(200);
          acked.set(id, version);
          if (++total === 300) {
            killed = true;
            service.child.kill('SIGKILL');
          }
        }
      }),
    );
    await exited;
    expect(service.child.signalCode).toBe('SIGKILL');
    const stored = storedPrices(dbPath);
    for (const id of ids) {
      // The write in flight at the kill may have committed without its answer: the stored
      // version is the last acknowledged one or that one plus one, never older.
      expect([acked.get(id), (acked.get(id) as number) + 1], `id ${id}`).toContain(stored.get(id));
    }
    const again = await startService(dbPath);
    for (const id of ids) {
      const res = await http(again.port, { path: `/api/transactions/${id}` });
      expect(JSON.parse(res.text).totalPrice).toBe(stored.get(id));
    }
  }, 120_000);
});

describe('two processes on one database', () => {
  it('read-modify-write with If-Match from both: every increment counts, none is lost', async () => {
    const dbPath = await createDb('shared.db', [1n]);
    const services = [await startService(dbPath), await startService(dbPath)];
    const perWorker = 15;
    let conflicts = 0;
    // Two workers per process, each adding 1 to totalPrice perWorker times.
    await Promise.all(
      [...services, ...services].map(async ({ port }) => {
        for (let done = 0; done < perWorker; ) {
          const current = await http(port, { path: '/api/transactions/1' });
          const price = JSON.parse(current.text).totalPrice as number;
          const res = await http(port, {
            method: 'PUT',
            path: '/api/transactions/1',
            headers: { ...JSON_PUT, 'If-Match': current.headers.etag as string },
            body: edit(1n, price + 1),
          });
          if (res.status === 200) done++;
          else {
            expect(res.status).toBe(412);
            conflicts++;
          }
        }
      }),
    );
    expect(storedPrices(dbPath).get(1n)).toBe(4 * perWorker);
    expect(conflicts).toBeGreaterThan(0); // the workers really did race
  }, 120_000);

  it('writes to different records from both processes are all kept', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => BigInt(100 + i));
    const dbPath = await createDb('split.db', ids);
    const services = [await startService(dbPath), await startService(dbPath)];
    await Promise.all(
      ids.map(async (id, i) => {
        const { port } = services[i % 2] as Service;
        for (let version = 1; version <= 10; version++) {
          const res = await http(port, { method: 'PUT', path: `/api/transactions/${id}`, headers: JSON_PUT, body: edit(id, version) });
          expect(res.status).toBe(200);
        }
      }),
    );
    const stored = storedPrices(dbPath);
    for (const id of ids) expect(stored.get(id)).toBe(10);
  }, 120_000);
});
