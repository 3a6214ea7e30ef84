// Password hashing with Node's built-in scrypt, at OWASP's recommended cost for scrypt
// (Password Storage Cheat Sheet: N=2^17, r=8, p=1; 128 MiB and a few hundred ms per hash).
//
// Stored form (self-describing, so parameters can change later without breaking old
// records):  scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>
// The plain password is NFC-normalised, so visually identical input hashes alike.
// crypto.scrypt runs on libuv's thread pool, so hashing never blocks the event loop; at
// most HASH_CONCURRENCY hashes run at once (each takes 128 MiB), the rest wait their turn.

import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** OWASP's scrypt parameters: N=2^17 (131072), r=8 (128-byte blocks), p=1. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };

/** Hashes that may run at once (memory: 128 × N × r bytes each, 128 MiB at the default). */
export const HASH_CONCURRENCY = 2;

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const HASH_FORMAT = /^scrypt\$(\d{1,10})\$(\d{1,4})\$(\d{1,4})\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{16,})$/;

let running = 0;
const waiting: (() => void)[] = [];

async function withHashSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= HASH_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next === undefined) running--;
    else next(); // the slot passes straight to the next waiter
  }
}

function derive(password: string, salt: Buffer, params: ScryptParams, keyLength: number): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node's default maxmem (32 MiB) is below OWASP's cost.
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 128 * params.N * params.r + 16 * 1024 * 1024 };
  return withHashSlot(
    () =>
      new Promise((resolve, reject) => {
        scrypt(password.normalize('NFC'), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
      }),
  );
}

export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, params, KEY_LENGTH);
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** True when `value` looks like a hash produced by hashPassword (used to check imported data). */
export function isPasswordHash(value: string): boolean {
  return HASH_FORMAT.test(value);
}

/** True when a stored hash was made with other parameters than `params` (so it should be redone). */
export function hashNeedsUpgrade(encoded: string, params: ScryptParams): boolean {
  const m = HASH_FORMAT.exec(encoded);
  return m === null || Number(m[1]) !== params.N || Number(m[2]) !== params.r || Number(m[3]) !== params.p;
}

export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const m = HASH_FORMAT.exec(encoded);
  if (m === null) return false;
  const [, n, r, p, salt, hash] = m as unknown as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) }, expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
