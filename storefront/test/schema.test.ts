// Validation cases generated from the schema description itself: every field of
// every type (Transaction, User, Coupon, Product — the latter in both places it occurs).

import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { parseJson } from '../src/json.js';
import { parseInt64, TransactionSpec, validateTransaction, type FieldSpec } from '../src/schema.js';
import {
  allFields,
  allObjects,
  getAt,
  sampleFor,
  startTestServer,
  toJson,
  withField,
  withoutField,
  type Plain,
  type TestServer,
} from './support.js';

const sample = sampleFor(TransactionSpec);
const fields = allFields(TransactionSpec);
const objects = allObjects(TransactionSpec);

function errorsOf(value: Plain) {
  const r = validateTransaction(parseJson(toJson(value)));
  return r.ok ? [] : r.errors;
}

/** A value of the wrong JSON type for a spec, and the type name the service reports for it. */
function wrongValue(spec: FieldSpec): [Plain, string] {
  switch (spec.kind) {
    case 'integer':
    case 'number':
      return ['12', 'string'];
    case 'string':
      return [12n, 'number'];
    case 'array':
      return [{ x: 'y' }, 'object'];
    case 'object':
      return [['x'], 'array'];
    case 'optional':
      return wrongValue(spec.of);
  }
}

function typeName(spec: FieldSpec): string {
  if (spec.kind === 'optional') return typeName(spec.of);
  return spec.kind === 'object' ? `object (${spec.name})` : spec.kind;
}

/** What leaving a field out, or sending null, should report: nothing when the schema allows it. */
function whenMissing(f: { spec: FieldSpec; jsonPath: string }) {
  return f.spec.kind === 'optional' ? [] : [{ path: f.jsonPath, reason: 'missing required field' }];
}
function whenNull(f: { spec: FieldSpec; jsonPath: string }) {
  return f.spec.kind === 'optional' && f.spec.nullable ? [] : [{ path: f.jsonPath, reason: `expected ${typeName(f.spec)}, got null` }];
}

describe('schema coverage (sanity of the generator)', () => {
  it('the generated sample is valid and every field of every type is enumerated', () => {
    expect(errorsOf(sample)).toEqual([]);
    const byOwner = new Map<string, Set<string>>();
    for (const f of fields) {
      const key = String(f.segments[f.segments.length - 1]);
      byOwner.set(f.owner, (byOwner.get(f.owner) ?? new Set()).add(key));
    }
    expect(Object.fromEntries([...byOwner].map(([k, v]) => [k, v.size]))).toEqual({
      Transaction: 7,
      User: 10,
      Coupon: 8,
      Product: 7,
    });
    // Product fields are reached both through products[0] and usedCoupon.affectedProducts[0].
    expect(fields).toHaveLength(7 + 10 + 8 + 7 + 7);
  });
});

describe('validateTransaction', () => {
  it.each(fields.map((f) => [f.jsonPath, f] as const))('reports %s when it is missing (unless optional)', (_p, f) => {
    expect(errorsOf(withoutField(sample, f.segments))).toEqual(whenMissing(f));
  });

  it('exactly two fields are optional: the coupon (absent or null) and the password (absent: the edit keeps the stored one)', () => {
    expect(fields.filter((f) => f.spec.kind === 'optional').map((f) => f.jsonPath)).toEqual(['$.user.password', '$.usedCoupon']);
    expect(errorsOf(withField(sample, ['usedCoupon'], null))).toEqual([]);
    expect(errorsOf(withoutField(sample, ['usedCoupon']))).toEqual([]);
    expect(errorsOf(withField(sample, ['user', 'password'], null))).toEqual([{ path: '$.user.password', reason: 'expected string, got null' }]);
  });

  it.each(fields.map((f) => [f.jsonPath, f] as const))('reports %s when it has the wrong type', (_p, f) => {
    const [value, got] = wrongValue(f.spec);
    expect(errorsOf(withField(sample, f.segments, value))).toEqual([
      { path: f.jsonPath, reason: `expected ${typeName(f.spec)}, got ${got}` },
    ]);
  });

  it.each(fields.map((f) => [f.jsonPath, f] as const))('reports %s when it is null (unless nullable)', (_p, f) => {
    expect(errorsOf(withField(sample, f.segments, null))).toEqual(whenNull(f));
  });

  it.each(objects.map((o) => [o.jsonPath, o] as const))('reports an unknown field inside %s', (_p, o) => {
    const target = getAt(sample, o.segments) as { [k: string]: Plain };
    const changed = o.segments.length === 0 ? { ...target, extra: 1n } : withField(sample, o.segments, { ...target, extra: 1n });
    expect(errorsOf(changed)).toEqual([{ path: `${o.jsonPath}.extra`, reason: `unknown field (not in the ${o.name} schema)` }]);
  });

  it('lists every problem at once, in document order, with bracket paths for odd keys', () => {
    const body = '{"id":"1","type":3,"totalPrice":"x","user":[],"usedCoupon":{},"products":[1,{"images":[1]}],"we ird":0}';
    const r = validateTransaction(parseJson(body));
    expect(r.ok).toBe(false);
    const errors = r.ok ? [] : r.errors;
    expect(errors.map((e) => e.path)).toEqual([
      '$.id',
      '$.date',
      '$.type',
      '$.totalPrice',
      '$.user',
      '$.usedCoupon.id',
      '$.usedCoupon.code',
      '$.usedCoupon.type',
      '$.usedCoupon.discount',
      '$.usedCoupon.minimum',
      '$.usedCoupon.startDate',
      '$.usedCoupon.dateOfExpiry',
      '$.usedCoupon.affectedProducts',
      '$.products[0]',
      '$.products[1].id',
      '$.products[1].name',
      '$.products[1].description',
      '$.products[1].price',
      '$.products[1].stock',
      '$.products[1].size',
      '$.products[1].images[0]',
      '$["we ird"]',
    ]);
  });

  it('accepts any string for size and dates (only the type is checked)', () => {
    let v = withField(sample, ['products', 0, 'size'], 'XS');
    v = withField(v, ['usedCoupon', 'affectedProducts', 0, 'size'], 'made-up size 🧦');
    v = withField(v, ['date'], 'not a date at all');
    v = withField(v, ['user', 'birthdate'], '');
    expect(errorsOf(v)).toEqual([]);
  });

  describe('integers (all schema integers are signed 64-bit)', () => {
    const intFields = fields.filter((f) => f.spec.kind === 'integer');

    it('there are integer fields in every type, mobileNumber included', () => {
      expect(intFields.map((f) => f.jsonPath)).toContain('$.user.mobileNumber');
      expect(intFields.map((f) => f.jsonPath)).toContain('$.products[0].stock');
    });

    it.each(intFields.map((f) => [f.jsonPath, f] as const))('%s accepts both ends of the int64 range, exactly', (_p, f) => {
      for (const v of [9223372036854775807n, -9223372036854775808n, 9007199254740993n]) {
        const r = validateTransaction(parseJson(toJson(withField(sample, f.segments, v))));
        expect(r.ok).toBe(true);
        if (r.ok) expect(getAt(r.value as unknown as Plain, f.segments)).toBe(v);
      }
    });

    it.each(intFields.map((f) => [f.jsonPath, f] as const))('%s rejects out-of-range, fractions and exponents', (_p, f) => {
      const text = toJson(withField(sample, f.segments, 424242n));
      for (const [literal, reason] of [
        ['9223372036854775808', 'outside the signed 64-bit range'],
        ['-9223372036854775809', 'outside the signed 64-bit range'],
        ['123456789012345678901234567890', 'outside the signed 64-bit range'],
        ['1.0', 'expected integer, got number with a fraction or exponent (1.0)'],
        ['1e3', 'expected integer, got number with a fraction or exponent (1e3)'],
        ['-2.5E-1', 'expected integer, got number with a fraction or exponent'],
      ] as const) {
        const r = validateTransaction(parseJson(text.replace('424242', literal)));
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect(r.errors).toHaveLength(1);
          expect(r.errors[0]?.path).toBe(f.jsonPath);
          expect(r.errors[0]?.reason).toContain(reason);
        }
      }
    });
  });

  describe('numbers', () => {
    const numFields = fields.filter((f) => f.spec.kind === 'number');
    it.each(numFields.map((f) => [f.jsonPath, f] as const))('%s accepts integers, fractions and exponents but not overflow', (_p, f) => {
      const text = toJson(withField(sample, f.segments, 424242n));
      for (const ok of ['0', '-3', '19.99', '1e3', '2.5E-3']) {
        const r = validateTransaction(parseJson(text.replace('424242', ok)));
        expect(r.ok).toBe(true);
        if (r.ok) expect(getAt(r.value as unknown as Plain, f.segments)).toBe(Number(ok));
      }
      for (const bad of ['1e400', '-1e309']) {
        const r = validateTransaction(parseJson(text.replace('424242', bad)));
        expect(r.ok ? [] : r.errors).toEqual([{ path: f.jsonPath, reason: `number ${bad} is not finite (outside the double-precision range)` }]);
      }
    });
  });

  it('parseInt64 accepts only canonical decimal text', () => {
    expect(parseInt64('9223372036854775807')).toEqual({ ok: true, value: 9223372036854775807n });
    expect(parseInt64('-9223372036854775808')).toEqual({ ok: true, value: -9223372036854775808n });
    for (const bad of ['', '+1', '01', '1.0', '1e3', ' 1', '0x10', '9223372036854775808', '-9223372036854775809', '١']) {
      expect(parseInt64(bad).ok).toBe(false);
    }
  });
});

describe('the same generated cases over HTTP', () => {
  let server: TestServer;
  const base = withField(sample, ['id'], 1n); // id 1 exists in the seed

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each(fields.filter((f) => f.spec.kind !== 'optional').map((f) => [f.jsonPath, f] as const))('PUT without %s → 400 naming it', async (_p, f) => {
    const res = await server.put(1n, toJson(withoutField(base, f.segments)));
    expect(res.status).toBe(400);
    const errors = JSON.parse(res.text).errors as { path: string; reason: string }[];
    expect(errors).toContainEqual({ path: f.jsonPath, reason: 'missing required field' });
    expect(errors).toHaveLength(1);
  });

  it('PUT without a coupon, or with "usedCoupon": null → 200, and the answer keeps it as sent', async () => {
    const absent = await server.put(1n, toJson(withoutField(base, ['usedCoupon'])));
    expect(absent.status).toBe(200);
    expect(absent.text).not.toContain('usedCoupon');
    const nulled = await server.put(1n, toJson(withField(base, ['usedCoupon'], null)));
    expect(nulled.status).toBe(200);
    expect(nulled.text).toContain('"usedCoupon":null');
  });

  it.each(fields.map((f) => [f.jsonPath, f] as const))('PUT with a wrong type at %s → 400 naming it', async (_p, f) => {
    const [value, got] = wrongValue(f.spec);
    const res = await server.put(1n, toJson(withField(base, f.segments, value)));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).errors).toEqual([{ path: f.jsonPath, reason: `expected ${typeName(f.spec)}, got ${got}` }]);
  });

  it.each(objects.map((o) => [o.jsonPath, o] as const))('PUT with an extra field in %s → 400', async (_p, o) => {
    const target = getAt(base, o.segments) as { [k: string]: Plain };
    const changed = o.segments.length === 0 ? { ...target, surprise: 'x' } : withField(base, o.segments, { ...target, surprise: 'x' });
    const res = await server.put(1n, toJson(changed));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).errors).toEqual([{ path: `${o.jsonPath}.surprise`, reason: `unknown field (not in the ${o.name} schema)` }]);
  });

  it('the unmodified generated body is accepted (so the 400s above are about the one change)', async () => {
    const res = await server.put(1n, toJson(base));
    expect(res.status).toBe(200);
  });
});
