// The JSON file the storefront used before its SQLite store
// ({"format":"storefront-transactions/1","transactions":[…]}), read once to import it.

import { readFileSync } from 'node:fs';
import { JsonObject, type JsonValue, parseJson } from './json.js';
import { isPasswordHash } from './password.js';
import { validateTransaction } from './schema.js';
import { type NewRecord, publicPart, StoreCorruptError } from './store.js';

export const LEGACY_FORMAT = 'storefront-transactions/1';

/**
 * The records of a legacy file, or none when there is no such file. Synchronous: it runs
 * once, inside the transaction that creates the database, before the port opens.
 */
export function readLegacyFile(path: string): NewRecord[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return decodeLegacyFile(path, text);
}

export function decodeLegacyFile(path: string, text: string): NewRecord[] {
  const bad = (why: string): never => {
    throw new StoreCorruptError(`cannot import ${path} (STOREFRONT_IMPORT_JSON): ${why}`);
  };
  let root: JsonValue;
  try {
    root = parseJson(text);
  } catch (err) {
    return bad((err as Error).message);
  }
  if (!(root instanceof JsonObject)) return bad('top level is not an object');
  if (root.fields.get('format') !== LEGACY_FORMAT) return bad(`"format" is not ${JSON.stringify(LEGACY_FORMAT)}`);
  const list = root.fields.get('transactions');
  if (!Array.isArray(list)) return bad('"transactions" is not an array');
  const records: NewRecord[] = [];
  const seen = new Set<bigint>();
  for (const [index, item] of list.entries()) {
    const at = `$.transactions[${index}]`;
    const r = validateTransaction(item, at);
    if (!r.ok) return bad(r.errors.map((e) => `${e.path}: ${e.reason}`).join('; '));
    const hash = r.value.user.password;
    if (hash === undefined || !isPasswordHash(hash)) return bad(`${at}.user.password is not a scrypt hash`);
    if (seen.has(r.value.id)) return bad(`${at}: duplicate id ${r.value.id}`);
    seen.add(r.value.id);
    records.push({ tx: publicPart(r.value), passwordHash: hash });
  }
  return records;
}
