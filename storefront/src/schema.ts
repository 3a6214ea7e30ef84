// The Transaction schema, written once as data. The same description drives
// validation (request bodies, the seed file and the db file), the TypeScript
// types (inferred below) and the tests (which generate their cases from it).

import { describeJsonType, JsonNumber, JsonObject, type JsonValue } from './json.js';

export type FieldSpec =
  | { readonly kind: 'integer' }
  | { readonly kind: 'number' }
  | { readonly kind: 'string' }
  | { readonly kind: 'object'; readonly name: string; readonly shape: Shape }
  | { readonly kind: 'array'; readonly items: FieldSpec };

export type Shape = { readonly [field: string]: FieldSpec };

export type Infer<F> = F extends { kind: 'integer' }
  ? bigint
  : F extends { kind: 'number' }
    ? number
    : F extends { kind: 'string' }
      ? string
      : F extends { kind: 'object'; shape: infer S }
        ? { -readonly [K in keyof S]: Infer<S[K]> }
        : F extends { kind: 'array'; items: infer I }
          ? Infer<I>[]
          : never;

const integer = { kind: 'integer' } as const;
const number = { kind: 'number' } as const;
const string = { kind: 'string' } as const;

export const ProductSpec = {
  kind: 'object',
  name: 'Product',
  shape: {
    id: integer,
    name: string,
    description: string,
    price: number,
    stock: integer,
    // "XS" is one known value; the others are not specified, so any string is accepted.
    size: string,
    images: { kind: 'array', items: string },
  },
} as const;

export const UserSpec = {
  kind: 'object',
  name: 'User',
  shape: {
    id: integer,
    name: string,
    lastName: string,
    username: string,
    password: string,
    email: string,
    address: string,
    birthdate: string,
    role: string,
    mobileNumber: integer,
  },
} as const;

export const CouponSpec = {
  kind: 'object',
  name: 'Coupon',
  shape: {
    id: integer,
    code: string,
    type: string,
    discount: number,
    minimum: number,
    startDate: string,
    dateOfExpiry: string,
    affectedProducts: { kind: 'array', items: ProductSpec },
  },
} as const;

export const TransactionSpec = {
  kind: 'object',
  name: 'Transaction',
  shape: {
    id: integer,
    date: string,
    type: string,
    totalPrice: number,
    user: UserSpec,
    usedCoupon: CouponSpec,
    products: { kind: 'array', items: ProductSpec },
  },
} as const satisfies FieldSpec;

export type Product = Infer<typeof ProductSpec>;
export type User = Infer<typeof UserSpec>;
export type Coupon = Infer<typeof CouponSpec>;
export type Transaction = Infer<typeof TransactionSpec>;

// ---------------------------------------------------------------------------
// Integers: every schema "integer" (ids, stock, mobileNumber) is a signed
// 64-bit integer, kept as a bigint.

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

const INTEGER_LITERAL = /^-?(?:0|[1-9][0-9]*)$/;

export type Int64Result = { ok: true; value: bigint } | { ok: false; reason: string };

/** Parse canonical decimal text (no sign '+', no leading zeros) as a signed 64-bit integer. */
export function parseInt64(text: string): Int64Result {
  if (!INTEGER_LITERAL.test(text)) {
    return { ok: false, reason: `expected a 64-bit integer in decimal form, got ${JSON.stringify(clip(text))}` };
  }
  // 20 characters is enough for "-9223372036854775808"; longer text is out of range
  // without building a huge bigint.
  const value = text.length > 20 ? undefined : BigInt(text);
  if (value === undefined || value < INT64_MIN || value > INT64_MAX) {
    return { ok: false, reason: `integer ${clip(text)} is outside the signed 64-bit range [-9223372036854775808, 9223372036854775807]` };
  }
  return { ok: true, value };
}

// ---------------------------------------------------------------------------
// Validation

export interface ValidationError {
  /** JSONPath-like location, e.g. `$.user.mobileNumber` or `$.products[2].images[0]`. */
  path: string;
  reason: string;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: ValidationError[] };

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function childPath(parent: string, key: string): string {
  return IDENTIFIER.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(clip(key))}]`;
}

function clip(s: string, max = 40): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function expected(what: string, got: JsonValue): string {
  return `expected ${what}, got ${describeJsonType(got)}`;
}

function check(spec: FieldSpec, value: JsonValue, path: string, errors: ValidationError[]): unknown {
  switch (spec.kind) {
    case 'integer': {
      if (!(value instanceof JsonNumber)) {
        errors.push({ path, reason: expected('integer', value) });
        return undefined;
      }
      if (!value.isIntegerLiteral) {
        errors.push({ path, reason: `expected integer, got number with a fraction or exponent (${clip(value.raw)})` });
        return undefined;
      }
      const r = parseInt64(value.raw);
      if (!r.ok) {
        errors.push({ path, reason: r.reason });
        return undefined;
      }
      return r.value;
    }
    case 'number': {
      if (!(value instanceof JsonNumber)) {
        errors.push({ path, reason: expected('number', value) });
        return undefined;
      }
      const n = Number(value.raw);
      if (!Number.isFinite(n)) {
        errors.push({ path, reason: `number ${clip(value.raw)} is not finite (outside the double-precision range)` });
        return undefined;
      }
      return n;
    }
    case 'string': {
      if (typeof value !== 'string') {
        errors.push({ path, reason: expected('string', value) });
        return undefined;
      }
      return value;
    }
    case 'array': {
      if (!Array.isArray(value)) {
        errors.push({ path, reason: expected('array', value) });
        return undefined;
      }
      return value.map((item, index) => check(spec.items, item, `${path}[${index}]`, errors));
    }
    case 'object': {
      if (!(value instanceof JsonObject)) {
        errors.push({ path, reason: expected(`object (${spec.name})`, value) });
        return undefined;
      }
      // Only schema field names are ever assigned (never a key taken from the
      // input), in schema order, so serialisation is deterministic.
      const out: Record<string, unknown> = {};
      for (const [field, fieldSpec] of Object.entries(spec.shape)) {
        const child = value.fields.get(field);
        if (child === undefined) {
          errors.push({ path: childPath(path, field), reason: 'missing required field' });
        } else {
          out[field] = check(fieldSpec, child, childPath(path, field), errors);
        }
      }
      for (const key of value.fields.keys()) {
        if (!Object.hasOwn(spec.shape, key)) {
          errors.push({ path: childPath(path, key), reason: `unknown field (not in the ${spec.name} schema)` });
        }
      }
      return out;
    }
  }
}

/** Validate a parsed JSON value against a spec; collects every problem, not just the first. */
export function validate<F extends FieldSpec>(spec: F, value: JsonValue, rootPath = '$'): ValidationResult<Infer<F>> {
  const errors: ValidationError[] = [];
  const out = check(spec, value, rootPath, errors);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: out as Infer<F> };
}

export function validateTransaction(value: JsonValue, rootPath = '$'): ValidationResult<Transaction> {
  return validate(TransactionSpec, value, rootPath);
}
