// Password hashing with Node's built-in scrypt.
//
// Stored form (self-describing, so parameters can change later without
// breaking old records):  scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>
// The plain password is NFC-normalised, so visually identical input hashes alike.

import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** OWASP-style interactive parameters: N=2^14, r=8, p=1 (about 16 MiB, tens of ms). */
export const DEFAULT_SCRYPT: ScryptParams = { N: 16384, r: 8, p: 1 };

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const HASH_FORMAT = /^scrypt\$(\d{1,10})\$(\d{1,4})\$(\d{1,4})\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{16,})$/;

function derive(password: string, salt: Buffer, params: ScryptParams, keyLength: number): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, params, KEY_LENGTH);
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** True when `value` looks like a hash produced by hashPassword (used to check the db file). */
export function isPasswordHash(value: string): boolean {
  return HASH_FORMAT.test(value);
}

export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const m = HASH_FORMAT.exec(encoded);
  if (m === null) return false;
  const [, n, r, p, salt, hash] = m as unknown as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) }, expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
