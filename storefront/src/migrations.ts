// The database schema, as numbered migrations. PRAGMA user_version holds how many have
// run; each runs once, inside the same transaction that bumps the version.

import type Database from 'libsql';

export interface Migration {
  readonly description: string;
  readonly up: (db: Database.Database) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    description: 'one row per transaction: its JSON (without the password) and the password hash',
    up: (db) =>
      db.exec(`CREATE TABLE transactions (
        id INTEGER PRIMARY KEY,   -- the signed 64-bit transaction id
        body TEXT NOT NULL,       -- the transaction as JSON, integers as exact literals, no password
        password_hash TEXT        -- scrypt$…; NULL while a seeded password is being hashed
      ) STRICT`),
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;
