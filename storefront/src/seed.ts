// Seed file: a JSON array of Transactions (plain-text passwords), validated with
// the same schema as request bodies, plus: every entry has a password. Any invalid
// entry stops the start-up.

import { readFile } from 'node:fs/promises';
import { JsonNumber, JsonObject, parseJson, type JsonValue } from './json.js';
import { validateTransaction, type Transaction } from './schema.js';

export class SeedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SeedError';
  }
}

function idHint(item: JsonValue): string {
  if (item instanceof JsonObject) {
    const id = item.fields.get('id');
    if (id instanceof JsonNumber) return ` (id ${id.raw.slice(0, 30)})`;
  }
  return '';
}

export function parseSeed(text: string, source: string): Transaction[] {
  let root: JsonValue;
  try {
    root = parseJson(text);
  } catch (err) {
    throw new SeedError(`seed file ${source} is not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(root)) throw new SeedError(`seed file ${source} must hold a JSON array of Transactions`);
  const out: Transaction[] = [];
  const seen = new Map<string, number>();
  root.forEach((item, index) => {
    const r = validateTransaction(item, `$[${index}]`);
    if (!r.ok) {
      const problems = r.errors.map((e) => `${e.path}: ${e.reason}`).join('; ');
      throw new SeedError(`seed file ${source}: entry ${index}${idHint(item)} is invalid: ${problems}`);
    }
    if (r.value.user.password === undefined) {
      throw new SeedError(`seed file ${source}: entry ${index}${idHint(item)} is invalid: $[${index}].user.password: missing (a seed entry needs one)`);
    }
    const key = r.value.id.toString();
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new SeedError(`seed file ${source}: entry ${index} (id ${key}) repeats the id of entry ${earlier}`);
    }
    seen.set(key, index);
    out.push(r.value);
  });
  return out;
}

export async function loadSeed(path: string): Promise<Transaction[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new SeedError(`cannot read seed file ${path}: ${(err as Error).message}`);
  }
  return parseSeed(text, path);
}
