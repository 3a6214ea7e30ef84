// JsonSlicer must agree with JSON.parse on every input: the same value for valid JSON, an error
// for invalid JSON, however the bytes are chunked and batched.
import { describe, expect, it } from 'vitest';
import { JsonSlicer, JsonUnitTooLarge, parseSliced } from '../../../src/broker/json-slicer.js';
import { prng } from '../../support/prng.js';

const STRINGS = ['', 'q1', 'a "quoted" \\ name', 'vh/1', 'ünïcødé ✓ 😀', 'line\nbreak', '[{,:}]', '\\', '"', '__proto__', 'x'.repeat(300)];

function value(random: () => number, depth: number): unknown {
  const r = random();
  if (depth > 3 || r < 0.35) {
    const s = random();
    if (s < 0.3) return Math.floor(random() * 1e6) * (random() < 0.2 ? -1 : 1);
    if (s < 0.4) return random() * 100;
    if (s < 0.5) return random() < 0.5;
    if (s < 0.55) return null;
    return STRINGS[Math.floor(random() * STRINGS.length)];
  }
  if (r < 0.65) return Array.from({ length: Math.floor(random() * 6) }, () => value(random, depth + 1));
  const out: Record<string, unknown> = {};
  for (let k = Math.floor(random() * 6); k > 0; k--) out[STRINGS[Math.floor(random() * STRINGS.length)]! + String(k % 3)] = value(random, depth + 1);
  return out;
}

/** JSON text with random whitespace around structural characters. */
function spaced(text: string, random: () => number): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    out += c;
    if (inString) {
      if (c === '\\') out += text[++i];
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if ('[]{},:'.includes(c) && random() < 0.3) out += [' ', '\n', '\t', '\r\n  '][Math.floor(random() * 4)];
  }
  return out;
}

function both(text: string, chunk: number, batch: number): { ok: boolean; value?: unknown; sliced?: unknown; error?: unknown } {
  let expected: unknown;
  let valid = true;
  try {
    expected = JSON.parse(text);
  } catch {
    valid = false;
  }
  try {
    const sliced = parseSliced(Buffer.from(text), chunk, 1 << 30, batch);
    return { ok: valid, value: expected, sliced };
  } catch (error) {
    return { ok: !valid, value: expected, error };
  }
}

describe('JsonSlicer agrees with JSON.parse', () => {
  it('on random valid documents, any chunking and batch size', () => {
    const random = prng(7);
    for (let n = 0; n < 400; n++) {
      const shape = random();
      const doc =
        shape < 0.4
          ? Array.from({ length: Math.floor(random() * 40) }, () => value(random, 1))
          : shape < 0.8
            ? { page: 1, items: Array.from({ length: Math.floor(random() * 40) }, () => value(random, 1)), other: value(random, 1) }
            : value(random, 0);
      const text = spaced(JSON.stringify(doc), random);
      const chunk = 1 + Math.floor(random() * 50);
      const batch = 1 + Math.floor(random() * 200);
      const result = both(text, chunk, batch);
      expect(result.error, text).toBeUndefined();
      expect(result.sliced, text).toEqual(result.value);
    }
  });

  it('on damaged documents: errors exactly when JSON.parse errors', () => {
    const random = prng(11);
    const damages = [
      (t: string) => t.slice(0, Math.floor(random() * t.length)),
      (t: string) => `${t},`,
      (t: string) => `${t} x`,
      (t: string) => t.replace(/\]$/, ',]'),
      (t: string) => t.replace(/,/, ',,'),
      (t: string) => t.replace(/:/, ''),
      (t: string) => t.replace(/"/, ''),
      (t: string) => t.replace(/\}/, ''),
      (t: string) => t.replace(/\{/, '['),
      (t: string) => t.replace(/\[/, '{'),
      (t: string) => t.replace(/\]/, '}'),
      (t: string) => `${t}${t}`,
    ];
    let errors = 0;
    for (let n = 0; n < 1500; n++) {
      const doc = random() < 0.5 ? Array.from({ length: 1 + Math.floor(random() * 10) }, () => value(random, 1)) : { items: [value(random, 1), value(random, 1)], page: 2 };
      const text = damages[Math.floor(random() * damages.length)]!(JSON.stringify(doc));
      const result = both(text, 1 + Math.floor(random() * 30), 1 + Math.floor(random() * 40));
      expect(result.ok, `${text} → ${String(result.error)}`).toBe(true);
      if (result.error) {
        expect(result.error, text).toBeInstanceOf(SyntaxError);
        errors++;
      } else expect(result.sliced, text).toEqual(result.value);
    }
    expect(errors).toBeGreaterThan(500);
  });

  it('keeps "__proto__" a plain key, as JSON.parse does', () => {
    const text = '{"__proto__":{"polluted":1},"items":[{"__proto__":{"x":1}}]}';
    const sliced = parseSliced(Buffer.from(text), 3, 1 << 30, 1) as Record<string, unknown>;
    expect(Object.getPrototypeOf(sliced)).toBe(Object.prototype);
    expect(Object.keys(sliced)).toEqual(['__proto__', 'items']);
    expect(sliced).toEqual(JSON.parse(text));
  });

  it('splits multibyte characters across chunks correctly', () => {
    const text = JSON.stringify(['ünïcødé ✓ 😀'.repeat(50), { name: '😀😀' }]);
    for (let chunk = 1; chunk < 9; chunk++) expect(parseSliced(Buffer.from(text), chunk, 1 << 30, 5)).toEqual(JSON.parse(text));
  });
});

describe('JsonSlicer limits', () => {
  it('refuses an element over the unit limit while it arrives', () => {
    const slicer = new JsonSlicer(1000, 100);
    slicer.push(Buffer.from('[{"name":"a"},{"name":"'));
    expect(() => slicer.push(Buffer.from('x'.repeat(2000)))).toThrow(JsonUnitTooLarge);
  });

  it('accepts many elements each under the limit, however long the list', () => {
    const list = Array.from({ length: 5000 }, (_, i) => ({ name: `q${i}`, messages: i }));
    expect(parseSliced(Buffer.from(JSON.stringify(list)), 4096, 100, 1000)).toEqual(list);
  });

  it('an empty body and a truncated body are errors', () => {
    expect(() => new JsonSlicer().end()).toThrow('empty');
    const slicer = new JsonSlicer();
    slicer.push(Buffer.from('[1,2'));
    expect(() => slicer.end()).toThrow('ends inside');
  });
});
