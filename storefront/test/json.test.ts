import { describe, it, expect } from 'vitest';
import { type JsonNumber, JsonObject, JsonSyntaxError, parseJson, stringifyJson } from '../src/json.js';

function syntaxError(text: string, maxDepth?: number): JsonSyntaxError {
  try {
    parseJson(text, maxDepth === undefined ? {} : { maxDepth });
  } catch (err) {
    if (err instanceof JsonSyntaxError) return err;
    throw err;
  }
  throw new Error(`expected a syntax error for ${text.slice(0, 40)}`);
}

describe('parseJson', () => {
  it('keeps every number literal exactly as written', () => {
    const v = parseJson('[9223372036854775807, 9007199254740993, -9223372036854775808, 1.50, 1e400, 0]');
    expect(Array.isArray(v)).toBe(true);
    expect((v as JsonNumber[]).map((n) => n.raw)).toEqual([
      '9223372036854775807',
      '9007199254740993',
      '-9223372036854775808',
      '1.50',
      '1e400',
      '0',
    ]);
    expect((v as JsonNumber[]).map((n) => n.isIntegerLiteral)).toEqual([true, true, true, false, false, true]);
  });

  it('parses objects into Maps, with awkward keys as plain data', () => {
    const v = parseJson('{"__proto__": {"x": 1}, "constructor": "c", "a\\u00e9\\n": [true, false, null]}');
    expect(v).toBeInstanceOf(JsonObject);
    const o = v as JsonObject;
    expect([...o.fields.keys()]).toEqual(['__proto__', 'constructor', 'aé\n']);
    expect(o.fields.get('aé\n')).toEqual([true, false, null]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('decodes string escapes', () => {
    expect(parseJson('"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\ud83d\\ude00"')).toBe('"\\/\b\f\n\r\tA😀');
  });

  it.each([
    ['', 0, 'unexpected end of input'],
    ['{"id": 1,, }', 9, 'expected a string key'],
    ['[1 2]', 3, "expected ',' or ']'"],
    ['{"a" 1}', 5, "expected ':'"],
    ['{"a":1}x', 7, 'after the JSON value'],
    ['01', 1, 'after the JSON value'],
    ['-', 0, 'invalid number'],
    ['1.', 1, 'after the JSON value'],
    ['"abc', 0, 'unterminated string'],
    ['"a\tb"', 2, 'control character'],
    ['"\\x"', 1, 'invalid escape'],
    ['"\\u12G4"', 1, 'invalid \\u escape'],
    ['{"a":1,"a":2}', 7, 'duplicate key "a"'],
    ['NaN', 0, 'unexpected character'],
    ["{'a':1}", 1, 'expected a string key'],
    ['[1,]', 3, 'unexpected character "]"'],
  ])('rejects %j at position %i', (text, position, detail) => {
    const err = syntaxError(text);
    expect(err.position).toBe(position);
    expect(err.message).toContain(detail);
    expect(err.message).toContain(`at position ${position}`);
  });

  it('reports line and column', () => {
    const err = syntaxError('{\n  "a": 1,\n  "b": ?\n}');
    expect(err.line).toBe(3);
    expect(err.column).toBe(8);
    expect(err.position).toBe(19);
  });

  it('is iterative: an array nested deeper than the call stack reaches parses when no depth limit applies', () => {
    // 100,000 levels already overflow a one-frame-per-level recursion (checked below), which is
    // what this proves; 1,000,000 only made it ten times slower (seconds on a loaded machine).
    const depth = 100_000;
    const recurse = (n: number): number => (n === 0 ? 0 : 1 + recurse(n - 1));
    expect(() => recurse(depth)).toThrow(RangeError);
    let v = parseJson('['.repeat(depth) + ']'.repeat(depth), { maxDepth: Infinity });
    let seen = 1;
    while (Array.isArray(v) && v.length === 1) {
      v = v[0] as typeof v;
      seen++;
    }
    expect(seen).toBe(depth);
  });

  it('rejects nesting beyond maxDepth with the position of the first offending bracket', () => {
    const err = syntaxError('['.repeat(10_000) + ']'.repeat(10_000), 32);
    expect(err.position).toBe(32);
    expect(err.message).toContain('nesting deeper than 32 levels');
    expect(() => parseJson('['.repeat(32) + ']'.repeat(32), { maxDepth: 32 })).not.toThrow();
    expect(() => parseJson(`${'{"a":'.repeat(33)}1${'}'.repeat(33)}`, { maxDepth: 32 })).toThrow(JsonSyntaxError);
  });
});

describe('stringifyJson', () => {
  it('writes bigints as bare, exact number literals', () => {
    expect(stringifyJson({ a: 9223372036854775807n, b: [-9223372036854775808n, 9007199254740993n], c: 1.5, d: 'x"y' })).toBe(
      '{"a":9223372036854775807,"b":[-9223372036854775808,9007199254740993],"c":1.5,"d":"x\\"y"}',
    );
  });

  it('skips undefined properties and refuses non-finite numbers', () => {
    expect(stringifyJson({ a: undefined, b: null })).toBe('{"b":null}');
    expect(() => stringifyJson({ a: Infinity })).toThrow(TypeError);
    expect(() => stringifyJson(NaN)).toThrow(TypeError);
  });
});
