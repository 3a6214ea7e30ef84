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

describe('JsonSlicer guesses cuts in lists written as the management API writes them', () => {
  // Records as the API writes them (no spaces), with `},{` where a guess can go wrong: inside
  // names, and between the objects of an array inside a record.
  const TRAPS = ['},{', '"},{"', '\\"},{', 'q},{"name":"x"}', '😀},{'];
  function records(random: () => number, count: number): unknown[] {
    return Array.from({ length: count }, (_, i) => {
      const record: Record<string, unknown> = { name: random() < 0.3 ? TRAPS[i % TRAPS.length] : `q${i}`, messages: Math.floor(random() * 1000) };
      if (random() < 0.3) record.nested = [{ a: 1 }, { b: TRAPS[i % TRAPS.length] }, { c: [{}, {}] }];
      if (random() < 0.2) record.stats = { rate: random(), details: { samples: [{ t: 1 }, { t: 2 }] } };
      return record;
    });
  }

  function sliced(text: string, chunk: number, batch: number, maxUnit = 1 << 30): { value: unknown; guessed: number } {
    const slicer = new JsonSlicer(maxUnit, batch);
    const body = Buffer.from(text);
    for (let i = 0; i < body.length; i += chunk) slicer.push(body.subarray(i, i + chunk));
    const value = slicer.end();
    // A guess is parsed with its commas made brackets for a moment: the bytes are left as they were.
    expect(body.toString()).toBe(text);
    return { value, guessed: slicer.guessedCuts };
  }

  it('gives what JSON.parse gives, guessing most cuts, whatever the traps', () => {
    const random = prng(5);
    let guessed = 0;
    for (let n = 0; n < 300; n++) {
      const list = records(random, 1 + Math.floor(random() * 60));
      const doc = random() < 0.5 ? list : { filtered_count: list.length, items: list, page: 1 };
      const text = JSON.stringify(doc);
      const result = sliced(text, 1 + Math.floor(random() * 300), 1 + Math.floor(random() * 120));
      expect(result.value, text).toEqual(doc);
      guessed += result.guessed;
    }
    expect(guessed).toBeGreaterThan(1000);
  });

  it('errors exactly when JSON.parse errors, damage before or after a guessed cut', () => {
    const random = prng(9);
    for (let n = 0; n < 500; n++) {
      const text = JSON.stringify(records(random, 2 + Math.floor(random() * 30)));
      const at = Math.floor(random() * text.length);
      const damaged = random() < 0.5 ? text.slice(0, at) + text.slice(at + 1) : `${text.slice(0, at)}}${text.slice(at)}`;
      let valid = true;
      try {
        JSON.parse(damaged);
      } catch {
        valid = false;
      }
      // The slicer's outcome alone inside the try: a JSON.parse of the damaged text there would throw
      // the very SyntaxError that a refusal is, and an accepted invalid text would pass as refused.
      let value: unknown;
      let error: unknown;
      try {
        value = sliced(damaged, 1 + Math.floor(random() * 200), 1 + Math.floor(random() * 80)).value;
      } catch (caught) {
        error = caught;
      }
      if (valid) {
        expect(error, `${damaged} → ${String(error)}`).toBeUndefined();
        expect(value).toEqual(JSON.parse(damaged));
      } else {
        expect(error, `${damaged} was accepted`).toBeInstanceOf(SyntaxError);
      }
    }
  });

  it('still refuses an element over the unit limit, `},{` inside it or not', () => {
    const big = { name: 'big', nested: Array.from({ length: 400 }, (_, i) => ({ i })) };
    const text = JSON.stringify([{ name: 'a' }, { name: 'b' }, big, { name: 'c' }]);
    expect(() => sliced(text, 64, 10, 1000)).toThrow(JsonUnitTooLarge);
    const plain = JSON.stringify([{ name: 'a' }, { name: 'b' }, { name: 'x'.repeat(5000) }, { name: 'c' }]);
    expect(() => sliced(plain, 64, 10, 1000)).toThrow(JsonUnitTooLarge);
  });

  it('refuses it while it arrives, after a guessed cut', () => {
    const slicer = new JsonSlicer(1000, 10);
    slicer.push(Buffer.from('[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"'));
    slicer.push(Buffer.from('x'.repeat(500)));
    expect(slicer.guessedCuts).toBeGreaterThan(0);
    expect(() => slicer.push(Buffer.from('x'.repeat(2000)))).toThrow(JsonUnitTooLarge);
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
