// 64-bit integers stay exact end to end: request text → store → file → answer text.

import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { readFile } from 'node:fs/promises';
import { JsonNumber, JsonObject, parseJson, type JsonValue } from '../src/json.js';
import { http, SEED_PATH, startTestServer, toJson, transaction, type TestServer } from './support.js';

let server: TestServer;
let dbAfterSeed: string;

beforeAll(async () => {
  server = await startTestServer(); // default 1 MiB body limit
  dbAfterSeed = await server.readDb();
});
afterAll(async () => {
  await server.stop();
});

/** Raw JSON text of a transaction, written by hand so no double ever touches the numbers. */
function rawTransaction(id: string, opts: { userId?: string; mobile?: string; stock?: string } = {}): string {
  return (
    `{"id":${id},"date":"d","type":"t","totalPrice":1.25,` +
    `"user":{"id":${opts.userId ?? '1'},"name":"n","lastName":"l","username":"u","password":"pw-int64","email":"e","address":"a","birthdate":"b","role":"r","mobileNumber":${opts.mobile ?? '1'}},` +
    `"usedCoupon":{"id":2,"code":"c","type":"t","discount":0.5,"minimum":1,"startDate":"s","dateOfExpiry":"x","affectedProducts":[]},` +
    `"products":[{"id":3,"name":"p","description":"d","price":2,"stock":${opts.stock ?? '4'},"size":"XS","images":["i"]}]}`
  );
}

describe('int64 ids and integers', () => {
  it.each(['9007199254740993', '9223372036854775807'])('id %s round-trips byte-exact through the answer and the db file', async (id) => {
    const body = rawTransaction(id, { userId: '-9223372036854775808', mobile: '9223372036854775806', stock: '9007199254740993' });
    const res = await server.put(id, body);
    expect(res.status).toBe(200);
    // The answer is the body minus the password field, byte for byte.
    expect(res.text).toBe(body.replace('"password":"pw-int64",', ''));
    expect(res.text.startsWith(`{"id":${id},`)).toBe(true);
    expect(res.text).toContain('"id":-9223372036854775808,');
    expect(res.text).toContain('"mobileNumber":9223372036854775806}');
    expect(res.text).toContain('"stock":9007199254740993,');
    // JSON.parse would have rounded these; make sure the test itself would notice.
    expect(String(JSON.parse(res.text).id)).not.toBe(id);

    const db = await server.readDb();
    expect(db).toContain(`{"id":${id},"date":"d","type":"t"`);
    expect(db).toContain('"mobileNumber":9223372036854775806}');
  });

  it('9223372036854775808 is rejected in the path and in the body', async () => {
    const res = await server.put('9223372036854775808', rawTransaction('9223372036854775808'));
    expect(res.status).toBe(400);
    const errors = JSON.parse(res.text).errors as { path: string; reason: string }[];
    expect(errors.map((e) => e.path)).toEqual(['{id}', '$.id']);
    for (const e of errors) expect(e.reason).toContain('9223372036854775808 is outside the signed 64-bit range');
  });

  it('a nested integer one past either end of the range is rejected', async () => {
    const res = await server.put('9223372036854775807', rawTransaction('9223372036854775807', { userId: '-9223372036854775809', mobile: '9223372036854775808' }));
    expect(res.status).toBe(400);
    expect((JSON.parse(res.text).errors as { path: string }[]).map((e) => e.path)).toEqual(['$.user.id', '$.user.mobileNumber']);
  });

  it('an id that differs from the path only past 2^53 is a mismatch (no rounding in the comparison)', async () => {
    const res = await server.put('9007199254740993', rawTransaction('9007199254740992'));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).errors).toEqual([{ path: '$.id', reason: 'body id 9007199254740992 does not match path id 9007199254740993' }]);
  });

  it('fractions and exponents in integer fields are 400, even when the value is whole', async () => {
    for (const id of ['1.0', '1e0', '10E-1']) {
      const res = await server.put('1', rawTransaction(id));
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text).errors[0]).toEqual({ path: '$.id', reason: `expected integer, got number with a fraction or exponent (${id})` });
    }
  });

  it('the seed file big ids were loaded exactly', () => {
    expect(dbAfterSeed).toContain('{"id":9007199254740993,"date":"2024-04-02"');
    expect(dbAfterSeed).toContain('"user":{"id":9007199254740995,');
    expect(dbAfterSeed).toContain('{"id":9223372036854775807,"date":"2024-05-03"');
    expect(dbAfterSeed).toContain('"user":{"id":-9223372036854775808,');
  });
});

/** JSON text of a parsed value with every number literal exactly as written, and without `user.password`. */
function literalText(v: JsonValue, key = ''): string {
  if (v instanceof JsonNumber) return v.raw;
  if (Array.isArray(v)) return `[${v.map((x) => literalText(x)).join(',')}]`;
  if (v instanceof JsonObject) {
    const fields = [...v.fields].filter(([k]) => !(key === 'user' && k === 'password'));
    return `{${fields.map(([k, x]) => `${JSON.stringify(k)}:${literalText(x, k)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

describe('the seed round-trips exactly', () => {
  it('GET answers every seed entry as written: every field, every type, every number literal (the password left out)', async () => {
    const entries = parseJson(await readFile(SEED_PATH, 'utf8')) as JsonObject[];
    expect(entries).toHaveLength(3);
    const fresh = await startTestServer(); // this file's other tests edit the shared server's records
    try {
      for (const entry of entries) {
        const id = (entry.fields.get('id') as JsonNumber).raw;
        const res = await http(fresh.port, { path: `/api/transactions/${id}` });
        expect(res.status).toBe(200);
        expect(res.text).toBe(literalText(entry));
      }
    } finally {
      await fresh.stop();
    }
  });
});

describe('body size with the default limit (1 MiB)', () => {
  it('a body over 1 MiB → 413', async () => {
    const big = toJson(transaction(1n)).replace('"Test"', `"${'x'.repeat(1024 * 1024)}"`);
    const res = await server.put(1n, big);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text).message).toBe('request body exceeds the limit of 1048576 bytes');
  });

  it('a 400,000-deep array (under 1 MiB) → 400, a 1,000,000-deep one → 413, and the server lives on', async () => {
    const r1 = await server.put(1n, '['.repeat(400_000) + ']'.repeat(400_000));
    expect(r1.status).toBe(400);
    const r2 = await server.put(1n, '['.repeat(1_000_000) + ']'.repeat(1_000_000));
    expect(r2.status).toBe(413);
    expect((await server.put(1n, toJson(transaction(1n)))).status).toBe(200);
  });
});
