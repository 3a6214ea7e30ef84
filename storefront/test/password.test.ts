// The user's password is never stored in plain text and never sent back.

import { afterEach, describe, it, expect } from 'vitest';
import { DEFAULT_SCRYPT, hashPassword, isPasswordHash, verifyPassword } from '../src/password.js';
import { parseJson, type JsonObject } from '../src/json.js';
import { SEED_IDS, TEST_SCRYPT, http, startTestServer, toJson, transaction, type HttpResult, type TestServer } from './support.js';

const servers: TestServer[] = [];
async function start(): Promise<TestServer> {
  const s = await startTestServer();
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** The stored password field of each record in the db file, by id. */
function storedPasswords(db: string): Map<string, string> {
  const root = parseJson(db) as JsonObject;
  const out = new Map<string, string>();
  for (const item of root.fields.get('transactions') as JsonObject[]) {
    const id = String((item.fields.get('id') as { raw: string }).raw);
    const user = item.fields.get('user') as JsonObject;
    out.set(id, user.fields.get('password') as string);
  }
  return out;
}

describe('password hashing', () => {
  it("the default cost is OWASP's for scrypt: N=2^17, r=8, p=1, and hashing at it works (maxmem raised)", async () => {
    expect(DEFAULT_SCRYPT).toEqual({ N: 131072, r: 8, p: 1 });
    const h = await hashPassword('s3cret');
    expect(h).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword('s3cret', h)).toBe(true);
  }, 30_000);

  it('hashing does not block the event loop', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = Date.now();
    await hashPassword('s3cret');
    clearInterval(timer);
    // A blocking hash would let no timer run until it finished.
    expect(ticks).toBeGreaterThan((Date.now() - started) / 5 / 4);
  }, 30_000);

  it('hashPassword produces a self-describing scrypt string with a random salt', async () => {
    const a = await hashPassword('s3cret', TEST_SCRYPT);
    const b = await hashPassword('s3cret', TEST_SCRYPT);
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(isPasswordHash(a)).toBe(true);
    expect(isPasswordHash('s3cret')).toBe(false);
    expect(await verifyPassword('s3cret', a)).toBe(true);
    expect(await verifyPassword('s3cret!', a)).toBe(false);
    expect(await verifyPassword('s3cret', 'garbage')).toBe(false);
  });

  it('normalises Unicode (NFC) before hashing', async () => {
    const h = await hashPassword('caf\u00e9', TEST_SCRYPT);
    expect(await verifyPassword('cafe\u0301', h)).toBe(true);
  });

  it('seed passwords are hashed after the port opens: the db file never holds them in plain text', async () => {
    const s = await start();
    expect(await s.running.seedPasswords).toBe(3);
    const db = await s.readDb();
    const bytes = await s.readDbBytes();
    for (const plain of ['plain-seed-password-ada', 'plain-seed-password-grace', 'plain-seed-password-max']) expect(bytes).not.toContain(plain);
    const stored = storedPasswords(db);
    expect(stored.size).toBe(3);
    expect(await verifyPassword('plain-seed-password-ada', stored.get('1') as string)).toBe(true);
    expect(await verifyPassword('plain-seed-password-grace', stored.get('9007199254740993') as string)).toBe(true);
    expect(await verifyPassword('plain-seed-password-max', stored.get('9223372036854775807') as string)).toBe(true);
  });

  it('an edit with a new password re-hashes it; the answer never contains it; the file never holds it', async () => {
    const s = await start();
    const secret = 'Tr0ub4dor&3-unique-secret';
    const answers: HttpResult[] = [];
    answers.push(await s.put(SEED_IDS.max, toJson(transaction(SEED_IDS.max, { password: secret }))));
    expect(answers[0]?.status).toBe(200);
    const body = JSON.parse(answers[0]?.text ?? '{}');
    expect(Object.keys(body.user)).not.toContain('password');
    expect(Object.keys(body.user)).toEqual(['id', 'name', 'lastName', 'username', 'email', 'address', 'birthdate', 'role', 'mobileNumber']);

    const stored = storedPasswords(await s.readDb()).get('9223372036854775807') as string;
    expect(isPasswordHash(stored)).toBe(true);
    expect(await verifyPassword(secret, stored)).toBe(true);
    expect(await verifyPassword('plain-seed-password-max', stored)).toBe(false);

    // The same password sent again is verified, not re-hashed: the hash and the ETag stay.
    answers.push(await s.put(SEED_IDS.max, toJson(transaction(SEED_IDS.max, { password: secret }))));
    const restored = storedPasswords(await s.readDb()).get('9223372036854775807') as string;
    expect(restored).toBe(stored);
    expect(answers[1]?.headers.etag).toBe(answers[0]?.headers.etag);

    // No other answer echoes it either: 400, 404, 412, 413, 415, 406.
    const bad = toJson(transaction(SEED_IDS.max, { password: secret })).replace('"date"', '"unknown":1,"date"');
    answers.push(await s.put(SEED_IDS.max, bad));
    answers.push(await s.put(5n, toJson(transaction(5n, { password: secret }))));
    answers.push(await s.put(SEED_IDS.max, toJson(transaction(SEED_IDS.max, { password: secret })), { 'Content-Type': 'application/json', 'If-Match': '"stale"' }));
    answers.push(await s.put(SEED_IDS.max, toJson(transaction(SEED_IDS.max, { password: secret })), { 'Content-Type': 'text/plain' }));
    answers.push(await s.put(SEED_IDS.max, toJson(transaction(SEED_IDS.max, { password: secret })), { 'Content-Type': 'application/json', Accept: 'text/html' }));
    answers.push(await s.put(SEED_IDS.max, toJson(transaction(SEED_IDS.max, { password: secret + 'x'.repeat(2 * 1024 * 1024) }))));
    answers.push(await http(s.port, { path: '/metrics' }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 400, 404, 412, 415, 406, 413, 200]);
    for (const a of answers) {
      expect(a.text).not.toContain(secret);
      expect(a.text).not.toContain('scrypt$');
      expect(a.text).not.toContain('"password"');
    }
    expect(await s.readDbBytes()).not.toContain(secret);
  });

  it('a password of the wrong type is reported without echoing the value', async () => {
    const s = await start();
    const body = toJson(transaction(1n)).replace('"password":"correct horse battery staple"', '"password":987654321');
    const res = await s.put(1n, body);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).errors).toEqual([{ path: '$.user.password', reason: 'expected string, got number' }]);
    expect(res.text).not.toContain('987654321');
  });
});
