// A small, strict JSON (RFC 8259) parser and serialiser for the storefront.
//
// Why not JSON.parse: JSON.parse turns every number into a double, so integer
// literals above 2^53 silently change value. This parser keeps every number as
// its exact source text (JsonNumber) and leaves the interpretation to the
// schema, so 64-bit ids survive end to end.
//
// Other properties the HTTP layer relies on:
// - iterative, not recursive: a 10,000-deep (or 1,000,000-deep) array cannot
//   overflow the stack; nesting beyond `maxDepth` is a syntax error;
// - duplicate object keys are rejected (no "last one wins" ambiguity);
// - objects are Maps, so keys such as "__proto__" are plain data;
// - errors carry the 0-based character offset plus line and column.

export class JsonNumber {
  constructor(readonly raw: string) {}

  /** True when the literal has neither a fraction nor an exponent. */
  get isIntegerLiteral(): boolean {
    return !/[.eE]/.test(this.raw);
  }
}

export class JsonObject {
  readonly fields = new Map<string, JsonValue>();
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;

export class JsonSyntaxError extends Error {
  constructor(
    readonly detail: string,
    /** 0-based offset in characters (UTF-16 code units) of the decoded text. */
    readonly position: number,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${detail} at position ${position} (line ${line}, column ${column})`);
    this.name = 'JsonSyntaxError';
  }
}

export interface ParseOptions {
  /** Maximum nesting of arrays/objects; deeper input is a syntax error. Default 64. */
  maxDepth?: number;
}

type Frame =
  | { kind: 'array'; value: JsonValue[] }
  | { kind: 'object'; value: JsonObject; key: string };

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

export function describeJsonType(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  if (value instanceof JsonNumber) return 'number';
  if (Array.isArray(value)) return 'array';
  return 'object';
}

export function parseJson(text: string, options: ParseOptions = {}): JsonValue {
  const maxDepth = options.maxDepth ?? 64;
  const n = text.length;
  let i = 0;

  const fail = (detail: string, at: number = i): never => {
    let line = 1;
    let lineStart = 0;
    for (let k = 0; k < at && k < n; k++) {
      if (text.charCodeAt(k) === 10) {
        line++;
        lineStart = k + 1;
      }
    }
    throw new JsonSyntaxError(detail, at, line, at - lineStart + 1);
  };

  const describeAt = (at: number): string =>
    at >= n ? 'unexpected end of input' : `unexpected character ${JSON.stringify(text[at])}`;

  const skipWs = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };

  const parseString = (): string => {
    // text[i] === '"'
    const start = i;
    i++;
    let out = '';
    let chunkStart = i;
    for (;;) {
      if (i >= n) fail('unterminated string', start);
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(chunkStart, i);
        i++;
        return out;
      }
      if (c < 0x20) fail('control character in string (must be escaped)');
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(chunkStart, i);
      const e = text[i + 1];
      switch (e) {
        case '"': out += '"'; i += 2; break;
        case '\\': out += '\\'; i += 2; break;
        case '/': out += '/'; i += 2; break;
        case 'b': out += '\b'; i += 2; break;
        case 'f': out += '\f'; i += 2; break;
        case 'n': out += '\n'; i += 2; break;
        case 'r': out += '\r'; i += 2; break;
        case 't': out += '\t'; i += 2; break;
        case 'u': {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('invalid \\u escape in string');
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
          break;
        }
        default:
          fail(e === undefined ? 'unterminated string' : `invalid escape \\${e} in string`);
      }
      chunkStart = i;
    }
  };

  const parseKey = (frameValue: JsonObject): string => {
    if (text[i] !== '"') fail(i >= n ? 'unexpected end of input' : `expected a string key, found ${JSON.stringify(text[i])}`);
    const keyAt = i;
    const key = parseString();
    if (frameValue.fields.has(key)) fail(`duplicate key ${JSON.stringify(key)}`, keyAt);
    skipWs();
    if (text[i] !== ':') fail(i >= n ? 'unexpected end of input' : `expected ':' after key, found ${JSON.stringify(text[i])}`);
    i++;
    skipWs();
    return key;
  };

  const stack: Frame[] = [];
  skipWs();

  for (;;) {
    // Expect a value at i.
    let value: JsonValue;
    const c = text[i];
    if (c === '{' || c === '[') {
      if (stack.length >= maxDepth) fail(`nesting deeper than ${maxDepth} levels`);
      i++;
      skipWs();
      if (c === '[') {
        const arr: JsonValue[] = [];
        if (text[i] === ']') {
          i++;
          value = arr;
        } else {
          stack.push({ kind: 'array', value: arr });
          continue;
        }
      } else {
        const obj = new JsonObject();
        if (text[i] === '}') {
          i++;
          value = obj;
        } else {
          const key = parseKey(obj);
          stack.push({ kind: 'object', value: obj, key });
          continue;
        }
      }
    } else if (c === '"') {
      value = parseString();
    } else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (m === null) fail('invalid number');
      const raw = (m as RegExpExecArray)[0];
      i += raw.length;
      value = new JsonNumber(raw);
    } else if (text.startsWith('true', i)) {
      i += 4;
      value = true;
    } else if (text.startsWith('false', i)) {
      i += 5;
      value = false;
    } else if (text.startsWith('null', i)) {
      i += 4;
      value = null;
    } else {
      return fail(describeAt(i));
    }

    // Attach the completed value to its parent, closing containers as needed.
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) {
        skipWs();
        if (i < n) fail(`unexpected character ${JSON.stringify(text[i])} after the JSON value`);
        return value;
      }
      skipWs();
      if (top.kind === 'array') {
        top.value.push(value);
        if (text[i] === ',') {
          i++;
          skipWs();
          break;
        }
        if (text[i] === ']') {
          i++;
          stack.pop();
          value = top.value;
          continue;
        }
        fail(i >= n ? 'unexpected end of input' : `expected ',' or ']', found ${JSON.stringify(text[i])}`);
      } else {
        top.value.fields.set(top.key, value);
        if (text[i] === ',') {
          i++;
          skipWs();
          top.key = parseKey(top.value);
          break;
        }
        if (text[i] === '}') {
          i++;
          stack.pop();
          value = top.value;
          continue;
        }
        fail(i >= n ? 'unexpected end of input' : `expected ',' or '}', found ${JSON.stringify(text[i])}`);
      }
    }
  }
}

/**
 * Serialise plain data to JSON. bigint values become bare number literals
 * (exact, never through a double); numbers must be finite; `undefined`
 * properties are skipped. Only used on the service's own data, which is shallow.
 */
export function stringifyJson(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('cannot serialise a non-finite number');
      return JSON.stringify(value);
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return `[${value.map((v) => stringifyJson(v)).join(',')}]`;
      const parts: string[] = [];
      for (const [k, v] of Object.entries(value)) {
        if (v === undefined) continue;
        parts.push(`${JSON.stringify(k)}:${stringifyJson(v)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      throw new TypeError(`cannot serialise a ${typeof value}`);
  }
}
