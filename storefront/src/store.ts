// Transaction storage: the interface the HTTP layer uses, so a server database could
// replace the embedded one (src/sqlite-store.ts) without touching the handlers.

import { computeEtag } from './etag.js';
import type { Precondition } from './etag.js';
import { stringifyJson } from './json.js';
import type { Transaction } from './schema.js';

/** A transaction as stored and answered: everything except the user's password. */
export type PublicTransaction = Omit<Transaction, 'user'> & { user: Omit<Transaction['user'], 'password'> };

export interface StoredRecord {
  readonly tx: PublicTransaction;
  /** The user's scrypt hash; null while a seeded password is still being hashed. */
  readonly passwordHash: string | null;
  /** Strong ETag, including the surrounding double quotes. */
  readonly etag: string;
}

export interface NewRecord {
  readonly tx: PublicTransaction;
  readonly passwordHash: string | null;
}

/** What an edit does to the stored password hash. */
export type PasswordChange = { kind: 'keep' } | { kind: 'set'; hash: string };

export type ReplaceOutcome =
  | { status: 'replaced'; record: StoredRecord }
  | { status: 'not-found' }
  | { status: 'precondition-failed'; current: StoredRecord };

export interface TransactionStore {
  get(id: bigint): Promise<StoredRecord | undefined>;
  /**
   * Replace an existing record (never creates). The existence and If-Match checks and the
   * write are one database transaction, so two writers (threads or processes) cannot both
   * pass the same precondition.
   */
  replace(id: bigint, tx: PublicTransaction, password: PasswordChange, ifMatch?: Precondition): Promise<ReplaceOutcome>;
  /** Insert all records, in one transaction, if and only if the store is empty; returns how many. */
  seedIfEmpty(records: Iterable<NewRecord>): Promise<number>;
  /** Ids above `after` whose password hash is still unset (seeded, hash pending), ascending, at most `limit`. */
  idsWithoutPassword(after: bigint | undefined, limit: number): Promise<bigint[]>;
  /** Set the hash of a record whose hash is unset; false when it was set meanwhile (an edit wins). */
  setPasswordIfUnset(id: bigint, hash: string): Promise<boolean>;
  size(): Promise<number>;
  close(): Promise<void>;
}

export class StoreCorruptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreCorruptError';
  }
}

/** The stored serialisation of a transaction (exact integer literals, schema field order). */
export function encodeTransaction(tx: PublicTransaction): string {
  return stringifyJson(tx);
}

/**
 * The ETag is a hash of everything stored for the record (its serialisation and its
 * password hash), so identical edits give identical tags, and it survives restarts.
 */
export function etagOf(body: string, passwordHash: string | null): string {
  return computeEtag(`${body}\n${passwordHash ?? ''}`);
}

/** A full transaction without its password, as the store keeps it. */
export function publicPart(tx: Transaction | PublicTransaction): PublicTransaction {
  const { password: _password, ...user } = tx.user as Transaction['user'];
  return { ...tx, user };
}
