// Bodies built to hurt the validator: huge numbers of problems, and random deep or wide
// shapes. Each must get a clean 400 (or 413) with at most 1000 listed problems, in bounded
// time, and the server must keep answering.

import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { JsonSyntaxError, parseJson } from '../src/json.js';
import { MAX_LISTED_PROBLEMS, ProblemList, validateTransaction } from '../src/schema.js';
import { startTestServer, toJson, transaction, type TestServer } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

/** A small deterministic PRNG (mulberry32), so a failing case can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['id', 'user', 'products', 'usedCoupon', 'images', 'price', 'x', '__proto__', 'size'];

/** A random JSON text: deep, wide, or both, built iteratively (the generator must not overflow either). */
function randomBody(random: () => number, budget: number): string {
  const out: string[] = [];
  const stack: ('[' | '{')[] = [];
  let emitted = 0;
  const scalar = (): string => {
    const r = random();
    if (r < 0.3) return String(Math.floor(random() * 1e6));
    if (r < 0.5) return '"s"';
    if (r < 0.6) return 'null';
    if (r < 0.7) return '1.5e3';
    if (r < 0.8) return 'true';
    return '99999999999999999999999';
  };
  const needsComma: boolean[] = [];
  const value = (): void => {
    if (needsComma[needsComma.length - 1]) out.push(',');
    needsComma[needsComma.length - 1] = true;
    if (stack[stack.length - 1] === '{') out.push(`"${KEYS[Math.floor(random() * KEYS.length)]}${emitted}":`);
    emitted++;
    const r = random();
    if (r < 0.25 && stack.length < 60) {
      const open = random() < 0.5 ? '[' : '{';
      out.push(open);
      stack.push(open);
      needsComma.push(false);
    } else {
      out.push(scalar());
    }
  };
  out.push('{');
  stack.push('{');
  needsComma.push(false);
  while (emitted < budget) {
    if (stack.length > 1 && random() < 0.1) {
      out.push(stack.pop() === '[' ? ']' : '}');
      needsComma.pop();
    } else {
      value();
    }
  }
  while (stack.length > 0) out.push(stack.pop() === '[' ? ']' : '}');
  return out.join('');
}

describe('a body with very many problems', () => {
  it('260 KB of {"products":[1,1,…]} (about 130k problems) → 400 listing 1000 and counting the rest', async () => {
    const count = 130_000;
    const body = `{"products":[${Array(count).fill('1').join(',')}]}`;
    expect(body.length).toBeGreaterThan(260_000);
    const res = await server.put(1n, body);
    expect(res.status).toBe(400);
    const answer = JSON.parse(res.text) as { message: string; errors: { path: string }[]; omittedErrors: number };
    expect(answer.errors).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(answer.errors[0]).toEqual({ path: '$.id', reason: 'missing required field' });
    // 5 required top-level fields missing (id, date, type, totalPrice, user) + one problem per product.
    expect(answer.message).toBe(`the request has ${count + 5} problem(s)`);
    expect(answer.omittedErrors).toBe(count + 5 - MAX_LISTED_PROBLEMS);
    expect((await server.put(1n, toJson(transaction(1n)))).status).toBe(200);
  });

  it('keeps at most the cap in memory, however many problems there are', () => {
    const problems = new ProblemList();
    const r = validateTransaction(parseJson(`{"products":[${Array(500_000).fill('1').join(',')}]}`), '$', problems);
    expect(r.ok).toBe(false);
    expect(problems.listed).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(problems.total).toBe(500_005);
  });

  it('1 MB of problems in six parallel requests: all 400, and an edit sent alongside is served', async () => {
    const body = `{"products":[${Array(500_000).fill('1').join(',')}]}`;
    const big = await startTestServer({ bodyLimit: 2 * 1024 * 1024 });
    try {
      const [answers, edit] = await Promise.all([
        Promise.all(Array.from({ length: 6 }, () => big.put(1n, body))),
        big.put(1n, toJson(transaction(1n))),
      ]);
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(400));
      expect(edit.status).toBe(200);
      for (const a of answers) expect(JSON.parse(a.text).omittedErrors).toBe(500_005 - MAX_LISTED_PROBLEMS);
    } finally {
      await big.stop();
    }
  }, 60_000);
});

describe('random deep and wide bodies (property)', () => {
  it('validation never throws, lists at most 1000 problems and counts them all, for 300 random bodies', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const random = prng(seed);
      const text = randomBody(random, 1 + Math.floor(random() * 20_000));
      let parsed: ReturnType<typeof parseJson>;
      try {
        parsed = parseJson(text, { maxDepth: 32 });
      } catch (err) {
        expect(err, `seed ${seed}`).toBeInstanceOf(JsonSyntaxError); // too deep: a clean syntax error
        continue;
      }
      const problems = new ProblemList();
      const r = validateTransaction(parsed, '$', problems);
      expect(r.ok, `seed ${seed}`).toBe(false);
      expect(problems.listed.length, `seed ${seed}`).toBe(Math.min(problems.total, MAX_LISTED_PROBLEMS));
    }
  }, 60_000);

  it('over HTTP, 30 random bodies (deep, wide, up to the size limit) each get a JSON 400 or 413, never a 500', async () => {
    for (let seed = 1000; seed < 1030; seed++) {
      const random = prng(seed);
      const body = randomBody(random, 1 + Math.floor(random() * 200_000));
      const res = await server.put(1n, body);
      expect([400, 413], `seed ${seed}`).toContain(res.status);
      const answer = JSON.parse(res.text) as { errors?: unknown[] };
      if (res.status === 400) expect(answer.errors?.length ?? 0).toBeLessThanOrEqual(MAX_LISTED_PROBLEMS);
    }
    expect((await server.put(1n, toJson(transaction(1n)))).status).toBe(200);
  }, 120_000);
});
