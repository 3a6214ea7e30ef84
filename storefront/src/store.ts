// Transaction storage.
//
// TransactionStore is the small interface the HTTP layer uses. The embedded
// default, FileTransactionStore, keeps every record in memory and persists the
// whole set to one JSON file on each write:
//   write <file>.<pid>.<n>.tmp (mode 0600) → fsync it → rename over <file> → fsync the directory.
// A crash therefore leaves either the old or the new file, never a torn one.
// Writes run one at a time through an in-process queue, and the If-Match check
// happens inside that queue, so two concurrent edits can neither interleave nor
// both pass the same precondition. One process per db file (not locked across processes).

import { type FileHandle, mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { computeEtag, preconditionHolds, type Precondition } from './etag.js';
import { JsonObject, type JsonValue, parseJson, stringifyJson } from './json.js';
import { isPasswordHash } from './password.js';
import { validateTransaction, type Transaction } from './schema.js';

export interface StoredRecord {
  /** The stored transaction; `user.password` holds a scrypt hash, never plain text. */
  readonly tx: Transaction;
  /** Strong ETag, including the surrounding double quotes. */
  readonly etag: string;
}

export type ReplaceOutcome =
  | { status: 'replaced'; record: StoredRecord }
  | { status: 'not-found' }
  | { status: 'precondition-failed'; current: StoredRecord };

export interface TransactionStore {
  get(id: bigint): Promise<StoredRecord | undefined>;
  /** Replace an existing record (never creates). `tx.user.password` must already be hashed. */
  replace(id: bigint, tx: Transaction, ifMatch?: Precondition): Promise<ReplaceOutcome>;
  /** Insert all records if, and only if, the store is empty; returns how many were inserted. */
  seedIfEmpty(txs: readonly Transaction[]): Promise<number>;
  size(): Promise<number>;
  /** Wait for queued writes to finish; later calls fail. */
  close(): Promise<void>;
}

export class StoreFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreFileError';
  }
}

export const STORE_FORMAT = 'storefront-transactions/1';

interface Entry extends StoredRecord {
  readonly line: string;
}

function makeEntry(tx: Transaction): Entry {
  const line = stringifyJson(tx);
  return { tx, line, etag: computeEtag(line) };
}

export class FileTransactionStore implements TransactionStore {
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  private tmpCounter = 0;

  private constructor(
    readonly path: string,
    private records: Map<string, Entry>,
  ) {}

  /** Open (creating the directory if needed) and load the db file; a missing file is an empty store. */
  static async open(path: string): Promise<FileTransactionStore> {
    const dir = dirname(path);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await removeStaleTempFiles(path);
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const records = text === undefined ? new Map<string, Entry>() : decodeFile(path, text);
    return new FileTransactionStore(path, records);
  }

  async get(id: bigint): Promise<StoredRecord | undefined> {
    const e = this.records.get(id.toString());
    return e === undefined ? undefined : { tx: e.tx, etag: e.etag };
  }

  async size(): Promise<number> {
    return this.records.size;
  }

  replace(id: bigint, tx: Transaction, ifMatch?: Precondition): Promise<ReplaceOutcome> {
    if (tx.id !== id) return Promise.reject(new Error('replace: tx.id differs from id'));
    return this.exclusive(async (): Promise<ReplaceOutcome> => {
      const key = id.toString();
      const current = this.records.get(key);
      if (current === undefined) return { status: 'not-found' };
      if (!preconditionHolds(ifMatch, current.etag)) {
        return { status: 'precondition-failed', current: { tx: current.tx, etag: current.etag } };
      }
      const entry = makeEntry(tx);
      const next = new Map(this.records);
      next.set(key, entry);
      await this.persist(next); // memory changes only once the file is durable
      this.records = next;
      return { status: 'replaced', record: { tx: entry.tx, etag: entry.etag } };
    });
  }

  seedIfEmpty(txs: readonly Transaction[]): Promise<number> {
    return this.exclusive(async () => {
      if (this.records.size > 0) return 0;
      const next = new Map<string, Entry>();
      for (const tx of txs) {
        const key = tx.id.toString();
        if (next.has(key)) throw new Error(`seedIfEmpty: duplicate id ${key}`);
        next.set(key, makeEntry(tx));
      }
      await this.persist(next);
      this.records = next;
      return next.size;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.tail;
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async persist(records: Map<string, Entry>): Promise<void> {
    const lines = [...records.values()].map((e) => e.line);
    const body = lines.length === 0 ? '' : `\n${lines.join(',\n')}\n`;
    const content = `{"format":${JSON.stringify(STORE_FORMAT)},"transactions":[${body}]}\n`;
    await writeFileAtomic(this.path, content, `${process.pid}.${++this.tmpCounter}`);
  }
}

/** Write a file so that readers and crashes see either the old or the new content. */
export async function writeFileAtomic(path: string, content: string, tmpTag: string): Promise<void> {
  const tmp = `${path}.${tmpTag}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    try {
      await fh.writeFile(content, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fsyncDirectory(dirname(path));
}

async function fsyncDirectory(dir: string): Promise<void> {
  let dh: FileHandle | undefined;
  try {
    dh = await open(dir, 'r');
    await dh.sync();
  } catch (err) {
    // Some platforms (Windows) cannot open or fsync a directory; the rename is still atomic there.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw err;
  } finally {
    await dh?.close();
  }
}

async function removeStaleTempFiles(path: string): Promise<void> {
  const dir = dirname(path);
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  await Promise.all(
    names
      .filter((n) => n.startsWith(prefix) && /^\d+\.\d+\.tmp$/.test(n.slice(prefix.length)))
      .map((n) => unlink(join(dir, n)).catch(() => undefined)),
  );
}

function decodeFile(path: string, text: string): Map<string, Entry> {
  const bad = (why: string): never => {
    throw new StoreFileError(`db file ${path} is not a valid storefront store: ${why}`);
  };
  let root: JsonValue;
  try {
    root = parseJson(text);
  } catch (err) {
    return bad((err as Error).message);
  }
  if (!(root instanceof JsonObject)) return bad('top level is not an object');
  if (root.fields.get('format') !== STORE_FORMAT) return bad(`"format" is not ${JSON.stringify(STORE_FORMAT)}`);
  const list = root.fields.get('transactions');
  if (!Array.isArray(list)) return bad('"transactions" is not an array');
  const records = new Map<string, Entry>();
  for (const [index, item] of list.entries()) {
    const path = `$.transactions[${index}]`;
    const r = validateTransaction(item, path);
    if (!r.ok) return bad(r.errors.map((e) => `${e.path}: ${e.reason}`).join('; '));
    if (!isPasswordHash(r.value.user.password)) return bad(`${path}.user.password is not a scrypt hash`);
    const key = r.value.id.toString();
    if (records.has(key)) return bad(`${path}: duplicate id ${key}`);
    records.set(key, makeEntry(r.value));
  }
  return records;
}
