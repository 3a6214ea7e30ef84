// The Transaction schema, written once as data. The same description drives
// validation (request bodies, the seed file and the db file), the TypeScript
// types (inferred below) and the tests (which generate their cases from it).

import { describeJsonType, JsonNumber, JsonObject, type JsonValue } from './json.js';

export type FieldSpec =
  | { readonly kind: 'integer' }
  | { readonly kind: 'number' }
  | { readonly kind: 'string' }
  | { readonly kind: 'object'; readonly name: string; readonly shape: Shape }
  | { readonly kind: 'array'; readonly items: FieldSpec }
  // A field that may be left out (and, when nullable, sent as null); only meaningful in a Shape.
  | { readonly kind: 'optional'; readonly of: FieldSpec; readonly nullable: boolean };

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
          : F extends { kind: 'optional'; of: infer O; nullable: true }
            ? Infer<O> | null | undefined
            : F extends { kind: 'optional'; of: infer O }
              ? Infer<O> | undefined
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
    // Optional in an edit: a PUT without it keeps the stored hash. A seed entry must have one.
    password: { kind: 'optional', of: string, nullable: false },
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
    // "an optionally used coupon": absent or null when none was used.
    usedCoupon: { kind: 'optional', of: CouponSpec, nullable: true },
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
  /** For malformed JSON: 0-based character offset of the problem. */
  position?: number;
}

/** At most this many problems are kept for one input; the rest are only counted. */
export const MAX_LISTED_PROBLEMS = 1000;

/**
 * The problems found in one input: the first `cap` are kept, the rest only counted, so a
 * body with a million problems costs a counter, not a million objects. Once full, callers
 * skip building paths and reasons (`full`), which keeps the time per problem constant too.
 */
export class ProblemList {
  readonly listed: ValidationError[] = [];
  total = 0;

  constructor(readonly cap: number = MAX_LISTED_PROBLEMS) {}

  get full(): boolean {
    return this.listed.length >= this.cap;
  }

  add(path: string, reason: string, position?: number): void {
    this.total++;
    if (this.listed.length < this.cap) this.listed.push(position === undefined ? { path, reason } : { path, reason, position });
  }

  get omitted(): number {
    return this.total - this.listed.length;
  }
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: ValidationError[]; total: number };

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

// Recursion here follows the schema (at most 5 levels), never the input: array items are a
// loop, and fields not in the schema are reported without being descended into.
function check(spec: FieldSpec, value: JsonValue, path: string, problems: ProblemList): unknown {
  switch (spec.kind) {
    case 'integer': {
      if (!(value instanceof JsonNumber)) {
        problems.add(path, expected('integer', value));
        return undefined;
      }
      if (!value.isIntegerLiteral) {
        problems.add(path, `expected integer, got number with a fraction or exponent (${clip(value.raw)})`);
        return undefined;
      }
      const r = parseInt64(value.raw);
      if (!r.ok) {
        problems.add(path, r.reason);
        return undefined;
      }
      return r.value;
    }
    case 'number': {
      if (!(value instanceof JsonNumber)) {
        problems.add(path, expected('number', value));
        return undefined;
      }
      const n = Number(value.raw);
      if (!Number.isFinite(n)) {
        problems.add(path, `number ${clip(value.raw)} is not finite (outside the double-precision range)`);
        return undefined;
      }
      return n;
    }
    case 'string': {
      if (typeof value !== 'string') {
        problems.add(path, expected('string', value));
        return undefined;
      }
      return value;
    }
    case 'optional': {
      if (value === null && spec.nullable) return null;
      return check(spec.of, value, path, problems);
    }
    case 'array': {
      if (!Array.isArray(value)) {
        problems.add(path, expected('array', value));
        return undefined;
      }
      const out: unknown[] = new Array(value.length);
      for (let index = 0; index < value.length; index++) {
        // Past the cap a path would only be thrown away: skip building it.
        const itemPath = problems.full ? '' : `${path}[${index}]`;
        out[index] = check(spec.items, value[index] as JsonValue, itemPath, problems);
      }
      return out;
    }
    case 'object': {
      if (!(value instanceof JsonObject)) {
        problems.add(path, expected(`object (${spec.name})`, value));
        return undefined;
      }
      // Only schema field names are ever assigned (never a key taken from the
      // input), in schema order, so serialisation is deterministic.
      const out: Record<string, unknown> = {};
      for (const [field, fieldSpec] of Object.entries(spec.shape)) {
        const child = value.fields.get(field);
        if (child === undefined) {
          if (fieldSpec.kind !== 'optional') problems.add(problems.full ? '' : childPath(path, field), 'missing required field');
        } else {
          out[field] = check(fieldSpec, child, problems.full ? '' : childPath(path, field), problems);
        }
      }
      for (const key of value.fields.keys()) {
        if (!Object.hasOwn(spec.shape, key)) {
          if (problems.full) problems.total++;
          else problems.add(childPath(path, key), `unknown field (not in the ${spec.name} schema)`);
        }
      }
      return out;
    }
  }
}

/**
 * Validate a parsed JSON value against a spec; collects every problem (the first
 * MAX_LISTED_PROBLEMS of them; `total` counts all). Pass `problems` to add to a list
 * that already holds other problems of the same request.
 */
export function validate<F extends FieldSpec>(
  spec: F,
  value: JsonValue,
  rootPath = '$',
  problems: ProblemList = new ProblemList(),
): ValidationResult<Infer<F>> {
  const before = problems.total;
  const out = check(spec, value, rootPath, problems);
  if (problems.total > before) return { ok: false, errors: problems.listed, total: problems.total };
  return { ok: true, value: out as Infer<F> };
}

export function validateTransaction(value: JsonValue, rootPath = '$', problems?: ProblemList): ValidationResult<Transaction> {
  return validate(TransactionSpec, value, rootPath, problems);
}
