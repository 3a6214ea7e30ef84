// Shared helpers for the storefront tests: a real server on 127.0.0.1:0 with a
// temp db, a raw HTTP client (node:http, so every header and byte is under our
// control), and sample data generated from the schema itself.

import { request } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'libsql';
import type { AuthConfig } from '../src/auth.js';
import { JsonObject, parseJson, stringifyJson } from '../src/json.js';
import type { ScryptParams } from '../src/password.js';
import type { FieldSpec } from '../src/schema.js';
import { startStorefront, type RunningStorefront, type ServerTimeouts } from '../src/server.js';

export const SEED_PATH = fileURLToPath(new URL('./fixtures/seed.json', import.meta.url));

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface HttpRequest {
  method?: string;
  path: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  /** Send the body with Transfer-Encoding: chunked (no Content-Length). */
  chunked?: boolean;
}

export function http(port: number, req: HttpRequest): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...(req.headers ?? {}) };
    if (req.body !== undefined && !req.chunked && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
      headers['Content-Length'] = Buffer.byteLength(req.body);
    }
    let answered = false;
    let cut: NodeJS.ErrnoException | undefined;
    const r = request({ host: '127.0.0.1', port, method: req.method ?? 'GET', path: req.path, headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    // An early answer (413) may make the server stop reading, so EPIPE/ECONNRESET while sending
    // are expected and the answer is what we test. A connection cut with no answer at all is an error.
    r.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' || err.code === 'ECONNRESET') cut = err;
      else reject(err);
    });
    r.on('close', () => {
      if (!answered) reject(new Error(`the server closed the connection without an answer (${cut?.code ?? 'no error'})`));
    });
    if (req.body !== undefined) {
      if (req.chunked) {
        const buf = Buffer.from(req.body);
        for (let i = 0; i < buf.length; i += 64 * 1024) r.write(buf.subarray(i, i + 64 * 1024));
      } else {
        r.write(req.body);
      }
    }
    r.end();
  });
}

export const JSON_HEADERS = { Accept: 'application/json', 'Content-Type': 'application/json' } as const;

export interface TestServer {
  port: number;
  dir: string;
  dbPath: string;
  running: RunningStorefront;
  put(id: string | bigint, body: string | Buffer, headers?: Record<string, string | number>): Promise<HttpResult>;
  /** Stop the server (graceful) and start a new one on the same db file. */
  restart(options?: { seedPath?: string }): Promise<void>;
  /** The database's rows, read through a separate connection, as one JSON document (see dumpDb). */
  readDb(): Promise<string>;
  /** The raw bytes of the database and its WAL, as latin1 text (to look for plain-text secrets). */
  readDbBytes(): Promise<string>;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  seedPath?: string | undefined;
  bodyLimit?: number;
  dir?: string;
  /** scrypt parameters; default TEST_SCRYPT (cheap: the production cost takes about a second a hash here). */
  scrypt?: ScryptParams;
  auth?: AuthConfig;
  timeouts?: ServerTimeouts;
  maxConnections?: number;
  importJsonPath?: string;
}

/** Cheap scrypt parameters for tests; password.test.ts checks the production ones. */
export const TEST_SCRYPT: ScryptParams = { N: 1024, r: 8, p: 1 };

/**
 * The rows of a storefront database as `{"transactions":[…]}`, one transaction per row with its
 * stored password hash put back as `user.password` (absent while unset), exact integers kept.
 */
export function dumpDb(dbPath: string): string {
  const db = new Database(dbPath);
  try {
    const rows = db.prepare('SELECT body, password_hash FROM transactions ORDER BY id').all() as { body: string; password_hash: string | null }[];
    const items = rows.map((row) => {
      if (row.password_hash === null) return row.body;
      const tx = parseJson(row.body) as JsonObject;
      const user = tx.fields.get('user') as JsonObject;
      const withHash = new JsonObject();
      for (const [k, v] of user.fields) {
        withHash.fields.set(k, v);
        if (k === 'username') withHash.fields.set('password', row.password_hash);
      }
      tx.fields.set('user', withHash);
      return jsonText(tx);
    });
    return `{"transactions":[\n${items.join(',\n')}\n]}`;
  } finally {
    db.close();
  }
}

/** Serialise a parsed value back to text, keeping number literals as they were. */
function jsonText(v: ReturnType<typeof parseJson>): string {
  if (v instanceof JsonObject) return `{${[...v.fields].map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(',')}}`;
  if (Array.isArray(v)) return `[${v.map(jsonText).join(',')}]`;
  if (v !== null && typeof v === 'object') return v.raw;
  return JSON.stringify(v);
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'storefront-test-')));
  const dbPath = join(dir, 'data', 'transactions.db');
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const seedPath = 'seedPath' in options ? options.seedPath : SEED_PATH;
  const start = (seed: string | undefined) =>
    startStorefront({
      port: 0,
      host: '127.0.0.1',
      dbPath,
      seedPath: seed,
      bodyLimit,
      auth: options.auth ?? { kind: 'none-local-only' },
      importJsonPath: options.importJsonPath,
      onError: () => undefined,
      scrypt: options.scrypt ?? TEST_SCRYPT,
      ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
      ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
    });
  let running = await start(seedPath);
  const server: TestServer = {
    get port() {
      return running.port;
    },
    dir,
    dbPath,
    get running() {
      return running;
    },
    put(id, body, headers = JSON_HEADERS) {
      return http(running.port, { method: 'PUT', path: `/api/transactions/${id}`, headers, body });
    },
    async restart(o = {}) {
      await running.close();
      running = await start(o.seedPath);
    },
    readDb: async () => dumpDb(dbPath),
    async readDbBytes() {
      const parts = await Promise.all([dbPath, `${dbPath}-wal`].map((p) => readFile(p).catch(() => Buffer.alloc(0))));
      return Buffer.concat(parts).toString('latin1');
    },
    async stop() {
      await running.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return server;
}

// ---------------------------------------------------------------------------
// Sample data generated from the schema.

export type Plain = bigint | number | string | boolean | null | Plain[] | { [k: string]: Plain };

/** A valid value for any spec: integers count up from `next`, arrays hold one item. */
export function sampleFor(spec: FieldSpec, counter = { next: 1n }): Plain {
  switch (spec.kind) {
    case 'integer':
      return counter.next++;
    case 'number':
      return 12.5;
    case 'string':
      return 'text';
    case 'array':
      return [sampleFor(spec.items, counter)];
    case 'optional':
      return sampleFor(spec.of, counter);
    case 'object': {
      const out: { [k: string]: Plain } = {};
      for (const [k, v] of Object.entries(spec.shape)) out[k] = sampleFor(v, counter);
      return out;
    }
  }
}

export interface FieldLocation {
  /** Segments from the root, e.g. ['usedCoupon', 'affectedProducts', 0, 'images']. */
  segments: (string | number)[];
  /** The JSON path the service reports, e.g. `$.usedCoupon.affectedProducts[0].images`. */
  jsonPath: string;
  spec: FieldSpec;
  /** Name of the object type holding the field, e.g. "Product". */
  owner: string;
}

/** Every object field reachable in a sample built by sampleFor (array items at index 0). */
export function allFields(spec: FieldSpec, segments: (string | number)[] = [], jsonPath = '$'): FieldLocation[] {
  const out: FieldLocation[] = [];
  if (spec.kind === 'object') {
    for (const [k, v] of Object.entries(spec.shape)) {
      const loc = { segments: [...segments, k], jsonPath: `${jsonPath}.${k}`, spec: v, owner: spec.name };
      out.push(loc, ...allFields(v, loc.segments, loc.jsonPath));
    }
  } else if (spec.kind === 'array') {
    out.push(...allFields(spec.items, [...segments, 0], `${jsonPath}[0]`));
  } else if (spec.kind === 'optional') {
    out.push(...allFields(spec.of, segments, jsonPath));
  }
  return out;
}

/** All object-typed locations, including the root (for "extra field" tests). */
export function allObjects(spec: FieldSpec, segments: (string | number)[] = [], jsonPath = '$'): { segments: (string | number)[]; jsonPath: string; name: string }[] {
  if (spec.kind === 'object') {
    const here = { segments, jsonPath, name: spec.name };
    return [here, ...Object.entries(spec.shape).flatMap(([k, v]) => allObjects(v, [...segments, k], `${jsonPath}.${k}`))];
  }
  if (spec.kind === 'array') return allObjects(spec.items, [...segments, 0], `${jsonPath}[0]`);
  if (spec.kind === 'optional') return allObjects(spec.of, segments, jsonPath);
  return [];
}

export function clone<T extends Plain>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => clone(x)) as T;
  if (v !== null && typeof v === 'object') {
    const out: { [k: string]: Plain } = {};
    for (const [k, x] of Object.entries(v)) out[k] = clone(x);
    return out as T;
  }
  return v;
}

function parentOf(root: Plain, segments: (string | number)[]): { parent: Record<string | number, Plain>; key: string | number } {
  let node: Plain = root;
  for (const s of segments.slice(0, -1)) node = (node as Record<string | number, Plain>)[s] as Plain;
  const key = segments[segments.length - 1];
  if (key === undefined) throw new Error('empty path');
  return { parent: node as Record<string | number, Plain>, key };
}

export function withoutField(root: Plain, segments: (string | number)[]): Plain {
  const copy = clone(root);
  const { parent, key } = parentOf(copy, segments);
  delete parent[key];
  return copy;
}

export function withField(root: Plain, segments: (string | number)[], value: Plain): Plain {
  const copy = clone(root);
  const { parent, key } = parentOf(copy, segments);
  parent[key] = value;
  return copy;
}

export function getAt(root: Plain, segments: (string | number)[]): Plain {
  let node: Plain = root;
  for (const s of segments) node = (node as Record<string | number, Plain>)[s] as Plain;
  return node;
}

export function toJson(v: Plain): string {
  return stringifyJson(v);
}

/** A complete, valid Transaction (plain password included) for an id. */
export function transaction(id: bigint, overrides: { password?: string; type?: string; totalPrice?: number } = {}): { [k: string]: Plain } {
  return {
    id,
    date: '2024-06-01T12:00:00Z',
    type: overrides.type ?? 'purchase',
    totalPrice: overrides.totalPrice ?? 42.5,
    user: {
      id: 77n,
      name: 'Test',
      lastName: 'User',
      username: 'tuser',
      password: overrides.password ?? 'correct horse battery staple',
      email: 'test@example.com',
      address: '1 Test Road',
      birthdate: '2000-01-01',
      role: 'customer',
      mobileNumber: 4915112345678n,
    },
    usedCoupon: {
      id: 5n,
      code: 'TEST5',
      type: 'fixed',
      discount: 5,
      minimum: 10,
      startDate: '2024-01-01',
      dateOfExpiry: '2030-01-01',
      affectedProducts: [
        { id: 900n, name: 'Cap', description: 'A cap', price: 9.99, stock: 3n, size: 'XS', images: ['a.jpg'] },
      ],
    },
    products: [{ id: 901n, name: 'Scarf', description: 'Long', price: 20, stock: 9007199254740993n, size: 'one-size', images: [] }],
  };
}

export const SEED_IDS = { small: 1n, past53: 9007199254740993n, max: 9223372036854775807n } as const;
