// Edits without the password, ETags from the stored content, and reading a record back.

import { afterEach, describe, it, expect } from 'vitest';
import { hashNeedsUpgrade, hashPassword, verifyPassword } from '../src/password.js';
import { http, SEED_IDS, startTestServer, TEST_SCRYPT, toJson, transaction, withoutField, type TestServer } from './support.js';

const servers: TestServer[] = [];
async function start(): Promise<TestServer> {
  const s = await startTestServer();
  servers.push(s);
  await s.running.seedPasswords;
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const withoutPassword = (id: bigint, o: Parameters<typeof transaction>[1] = {}) => toJson(withoutField(transaction(id, o), ['user', 'password']));

describe('PUT without user.password', () => {
  it('keeps the stored hash: the seeded password still verifies after a price change', async () => {
    const s = await start();
    const before = await s.running.store.get(SEED_IDS.small);
    const res = await s.put(SEED_IDS.small, withoutPassword(SEED_IDS.small, { totalPrice: 1.5 }));
    expect(res.status).toBe(200);
    const after = await s.running.store.get(SEED_IDS.small);
    expect(after?.tx.totalPrice).toBe(1.5);
    expect(after?.passwordHash).toBe(before?.passwordHash);
    expect(await verifyPassword('plain-seed-password-ada', after?.passwordHash as string)).toBe(true);
  });

  it('with a new password the hash changes, and only the new password verifies', async () => {
    const s = await start();
    expect((await s.put(SEED_IDS.small, toJson(transaction(SEED_IDS.small, { password: 'brand-new-password' })))).status).toBe(200);
    const hash = (await s.running.store.get(SEED_IDS.small))?.passwordHash as string;
    expect(await verifyPassword('brand-new-password', hash)).toBe(true);
    expect(await verifyPassword('plain-seed-password-ada', hash)).toBe(false);
  });
});

describe('PUT with the stored password', () => {
  it('keeps a hash made with the configured scrypt parameters, and hashes again one made with others (an upgrade)', async () => {
    const s = await start();
    const id = SEED_IDS.small;
    const record = (await s.running.store.get(id))!;
    const old = await hashPassword('same-password', { ...TEST_SCRYPT, N: TEST_SCRYPT.N / 2 });
    await s.running.store.replace(id, record.tx, { kind: 'set', hash: old });
    expect(hashNeedsUpgrade(old, TEST_SCRYPT)).toBe(true);
    expect((await s.put(id, toJson(transaction(id, { password: 'same-password' })))).status).toBe(200);
    const upgraded = (await s.running.store.get(id))?.passwordHash as string;
    expect(upgraded).not.toBe(old);
    expect(hashNeedsUpgrade(upgraded, TEST_SCRYPT)).toBe(false);
    expect(await verifyPassword('same-password', upgraded)).toBe(true);
    // Sent again: the current hash verifies and is kept.
    expect((await s.put(id, toJson(transaction(id, { password: 'same-password' })))).status).toBe(200);
    expect((await s.running.store.get(id))?.passwordHash).toBe(upgraded);
  });
});

describe('ETag from the stored content', () => {
  it('identical PUTs get identical ETags, so a retry with the same If-Match succeeds', async () => {
    const s = await start();
    const body = withoutPassword(SEED_IDS.max, { type: 'retry' });
    const first = await s.put(SEED_IDS.max, body);
    const second = await s.put(SEED_IDS.max, body);
    expect(second.headers.etag).toBe(first.headers.etag);
    const retried = await s.put(SEED_IDS.max, body, { 'Content-Type': 'application/json', 'If-Match': first.headers.etag as string });
    expect(retried.status).toBe(200);
    expect(retried.headers.etag).toBe(first.headers.etag);
    // The same edit carrying the same password also keeps the tag (the password is verified, not re-hashed).
    const withPw = toJson(transaction(SEED_IDS.max, { type: 'retry', password: 'same-password-twice' }));
    const a = await s.put(SEED_IDS.max, withPw);
    const b = await s.put(SEED_IDS.max, withPw);
    expect(a.headers.etag).not.toBe(first.headers.etag); // the password changed
    expect(b.headers.etag).toBe(a.headers.etag);
  });
});

describe('GET /api/transactions/{id}', () => {
  it('answers the stored record and its ETag, never the password or its hash', async () => {
    const s = await start();
    const put = await s.put(SEED_IDS.past53, toJson(transaction(SEED_IDS.past53, { type: 'read-me', password: 'do-not-echo-me' })));
    const res = await http(s.port, { path: `/api/transactions/${SEED_IDS.past53}`, headers: { Accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe(put.headers.etag);
    expect(res.text).toBe(put.text);
    expect(res.text).toBe(withoutPassword(SEED_IDS.past53, { type: 'read-me' }));
    expect(res.text).not.toContain('password');
    expect(res.text).not.toContain('scrypt$');
    expect(res.text).not.toContain('do-not-echo-me');
  });

  it('after a 412 the client reads the current record and its tag, and its retry succeeds', async () => {
    const s = await start();
    const mine = (await http(s.port, { path: '/api/transactions/1' })).headers.etag as string;
    expect((await s.put(1n, withoutPassword(1n, { type: 'someone-else' }))).status).toBe(200);
    const lost = await s.put(1n, withoutPassword(1n, { type: 'mine' }), { 'Content-Type': 'application/json', 'If-Match': mine });
    expect(lost.status).toBe(412);
    const current = await http(s.port, { path: '/api/transactions/1' });
    expect(JSON.parse(current.text).type).toBe('someone-else');
    expect(current.headers.etag).toBe(lost.headers.etag);
    const retry = await s.put(1n, withoutPassword(1n, { type: 'mine' }), { 'Content-Type': 'application/json', 'If-Match': current.headers.etag as string });
    expect(retry.status).toBe(200);
  });

  it('404 for an unknown id, 400 for a bad one, 406 when JSON is not acceptable', async () => {
    const s = await start();
    expect((await http(s.port, { path: '/api/transactions/5' })).status).toBe(404);
    const bad = await http(s.port, { path: '/api/transactions/9223372036854775808' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).errors[0].path).toBe('{id}');
    expect((await http(s.port, { path: '/api/transactions/1', headers: { Accept: 'text/html' } })).status).toBe(406);
  });
});
