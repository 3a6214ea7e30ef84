// The embedded store: one SQLite database (through libsql, whose prebuilt binary comes
// from the npm registry). One row per transaction holding its JSON; see the README for why.
//
// Durability and concurrency: WAL journal with synchronous=FULL, so a write is on disk
// before it is acknowledged. Every write runs in an IMMEDIATE transaction (it takes the write
// lock before reading), so the If-Match check and the write cannot be split by another
// writer, in this process or another. Other processes wait up to busy_timeout for the lock.
// Edits that arrive while the event loop is busy are committed together (group commit: one
// transaction, one fsync, each edit checked in arrival order against the state the previous
// ones left), and each is answered only after that commit.

import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'libsql';
import { type Checkpointer, startCheckpointer } from './checkpointer.js';
import { preconditionHolds, type Precondition } from './etag.js';
import { parseJson } from './json.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { validateTransaction } from './schema.js';
import {
  encodeTransaction,
  etagOf,
  type NewRecord,
  type PasswordChange,
  type PublicTransaction,
  publicPart,
  type ReplaceOutcome,
  StoreCorruptError,
  type StoredRecord,
  type TransactionStore,
} from './store.js';

export interface SqliteStoreOptions {
  /** Records to insert when the database is created (the legacy JSON file), in the creating transaction. */
  initialRecords?: () => Iterable<NewRecord>;
  /** How long a write waits for another process's lock before failing (ms). */
  busyTimeoutMs?: number;
  /** How often the checkpoint worker copies the WAL into the database (ms); 0 = no worker. */
  checkpointIntervalMs?: number;
  onError?: (message: string) => void;
}

/** WAL pages after which the writing connection checkpoints itself: only if the worker falls far behind. */
const SAFETY_AUTOCHECKPOINT_PAGES = 20_000;

interface PendingEdit {
  run: () => ReplaceOutcome;
  resolve: (outcome: ReplaceOutcome) => void;
  reject: (err: unknown) => void;
}

interface Row {
  body: string;
  password_hash: string | null;
}

export class SqliteTransactionStore implements TransactionStore {
  /** How many records the creating transaction imported (0 when the database already existed). */
  imported = 0;
  /** The checkpoint worker, if one runs. */
  checkpointer: Checkpointer | undefined;
  private closed = false;
  private pending: PendingEdit[] = [];
  private readonly selectOne;
  private readonly updateOne;
  private readonly insertOne;
  private readonly setHash;

  private constructor(
    readonly path: string,
    private readonly db: Database.Database,
  ) {
    this.selectOne = db.prepare('SELECT body, password_hash FROM transactions WHERE id = ?');
    this.updateOne = db.prepare('UPDATE transactions SET body = ?, password_hash = ? WHERE id = ?');
    this.insertOne = db.prepare('INSERT INTO transactions (id, body, password_hash) VALUES (?, ?, ?)');
    this.setHash = db.prepare('UPDATE transactions SET password_hash = ? WHERE id = ? AND password_hash IS NULL');
  }

  static open(path: string, options: SqliteStoreOptions = {}): SqliteTransactionStore {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Create the file private before SQLite does (it holds password hashes); SQLite gives its
    // -wal and -shm files the same mode.
    closeSync(openSync(path, 'a', 0o600));
    const db = new Database(path);
    try {
      db.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = FULL');
      // 16 MiB of page cache (SQLite's default is 2 MiB): the inner pages of a million-row table stay in memory.
      db.exec('PRAGMA cache_size = -16384');
      // After a checkpoint the WAL file is cut back to 64 MiB (a large import would leave it huge).
      db.exec('PRAGMA journal_size_limit = 67108864');
      const imported = migrate(db, path, options);
      const store = new SqliteTransactionStore(path, db);
      store.imported = imported;
      const interval = options.checkpointIntervalMs ?? 200;
      if (interval > 0) {
        db.exec(`PRAGMA wal_autocheckpoint = ${SAFETY_AUTOCHECKPOINT_PAGES}`);
        store.checkpointer = startCheckpointer(path, interval, options.onError ?? ((m) => console.error(`storefront: ${m}`)));
      }
      return store;
    } catch (err) {
      db.close();
      throw err;
    }
  }

  async get(id: bigint): Promise<StoredRecord | undefined> {
    this.assertOpen();
    const row = this.selectOne.get(id) as Row | undefined;
    return row === undefined ? undefined : this.decode(id, row);
  }

  replace(id: bigint, tx: PublicTransaction, password: PasswordChange, ifMatch?: Precondition): Promise<ReplaceOutcome> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    if (tx.id !== id) return Promise.reject(new Error('replace: tx.id differs from id'));
    return new Promise((resolve, reject) => {
      this.pending.push({ run: () => this.replaceInTransaction(id, tx, password, ifMatch), resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.commitPending());
    });
  }

  /** One transaction for every edit queued so far; each edit's own failure (a corrupt row) fails only that edit. */
  private commitPending(): void {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    let results: ({ ok: true; outcome: ReplaceOutcome } | { ok: false; err: unknown })[];
    try {
      results = this.immediate(() =>
        batch.map((edit) => {
          try {
            return { ok: true as const, outcome: edit.run() };
          } catch (err) {
            if (!(err instanceof StoreCorruptError)) throw err; // anything else fails the whole transaction
            return { ok: false as const, err };
          }
        }),
      );
    } catch (err) {
      for (const edit of batch) edit.reject(err);
      return;
    }
    batch.forEach((edit, i) => {
      const r = results[i];
      if (r?.ok) edit.resolve(r.outcome);
      else edit.reject(r?.err);
    });
  }

  private replaceInTransaction(id: bigint, tx: PublicTransaction, password: PasswordChange, ifMatch?: Precondition): ReplaceOutcome {
    const row = this.selectOne.get(id) as Row | undefined;
    if (row === undefined) return { status: 'not-found' };
    const current = this.decode(id, row);
    if (!preconditionHolds(ifMatch, current.etag)) return { status: 'precondition-failed', current };
    const body = encodeTransaction(tx);
    const hash = password.kind === 'set' ? password.hash : row.password_hash;
    this.updateOne.run(body, hash, id);
    return { status: 'replaced', record: { tx, passwordHash: hash, etag: etagOf(body, hash) } };
  }

  async seedIfEmpty(records: Iterable<NewRecord>): Promise<number> {
    this.assertOpen();
    return this.immediate(() => {
      const any = (this.db.prepare('SELECT EXISTS (SELECT 1 FROM transactions) AS present').get() as { present: number }).present;
      if (any !== 0) return 0;
      return insertAll(this.insertOne, records);
    });
  }

  async idsWithoutPassword(after: bigint | undefined, limit: number): Promise<bigint[]> {
    this.assertOpen();
    const rows = (
      after === undefined
        ? this.db.prepare('SELECT id FROM transactions WHERE password_hash IS NULL ORDER BY id LIMIT ?').safeIntegers(true).all(limit)
        : this.db.prepare('SELECT id FROM transactions WHERE password_hash IS NULL AND id > ? ORDER BY id LIMIT ?').safeIntegers(true).all(after, limit)
    ) as { id: bigint }[];
    return rows.map((r) => r.id);
  }

  async setPasswordIfUnset(id: bigint, hash: string): Promise<boolean> {
    this.assertOpen();
    return this.setHash.run(hash, id).changes === 1;
  }

  async size(): Promise<number> {
    this.assertOpen();
    return Number((this.db.prepare('SELECT count(*) AS n FROM transactions').get() as { n: number }).n);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.commitPending(); // edits already accepted are committed, not dropped
    this.closed = true;
    await this.checkpointer?.stop();
    try {
      this.db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get(); // leave an empty WAL behind
    } catch {
      // another process is using the database: its own checkpoints will do
    }
    this.db.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }

  private immediate<T>(fn: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn();
      this.db.exec('COMMIT');
      return result;
    } catch (err) {
      // On a full disk (and I/O errors) SQLite has rolled back already: a ROLLBACK then fails with
      // "cannot rollback - no transaction is active", which libsql's transaction() threw in place of why.
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw err;
    }
  }

  private decode(id: bigint, row: Row): StoredRecord {
    const bad = (why: string): never => {
      throw new StoreCorruptError(`database ${this.path}: transaction ${id}: ${why}`);
    };
    let parsed: ReturnType<typeof parseJson>;
    try {
      parsed = parseJson(row.body);
    } catch (err) {
      return bad((err as Error).message);
    }
    const r = validateTransaction(parsed);
    if (!r.ok) return bad(r.errors.map((e) => `${e.path}: ${e.reason}`).join('; '));
    if (r.value.user.password !== undefined) return bad('the stored JSON holds a password');
    return { tx: publicPart(r.value), passwordHash: row.password_hash, etag: etagOf(row.body, row.password_hash) };
  }
}

function insertAll(insert: Database.Statement<unknown[]>, records: Iterable<NewRecord>): number {
  let n = 0;
  for (const { tx, passwordHash } of records) {
    insert.run(tx.id, encodeTransaction(tx), passwordHash);
    n++;
  }
  return n;
}

/** Bring the schema to SCHEMA_VERSION, one transaction; the creating one also imports initial records. */
function migrate(db: Database.Database, path: string, options: SqliteStoreOptions): number {
  return db.transaction(() => {
    let imported = 0;
    const version = Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
    if (version > SCHEMA_VERSION) {
      throw new StoreCorruptError(`database ${path} has schema version ${version}, newer than this storefront's ${SCHEMA_VERSION}; run a newer storefront`);
    }
    for (let v = version; v < SCHEMA_VERSION; v++) (MIGRATIONS[v] as (typeof MIGRATIONS)[number]).up(db);
    if (version === 0 && options.initialRecords !== undefined) {
      imported = insertAll(db.prepare('INSERT INTO transactions (id, body, password_hash) VALUES (?, ?, ?)'), options.initialRecords());
    }
    if (version !== SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    return imported;
  }).immediate();
}
