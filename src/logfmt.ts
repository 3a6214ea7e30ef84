import { Writable } from 'node:stream';

/**
 * Turns pino's JSON lines into logfmt (`ts=… level=info msg="…" target=default`), for operators
 * whose log pipeline expects it. Nested objects become dotted keys; a line that is not JSON is
 * passed on as it is.
 */
export function logfmtStream(out: NodeJS.WritableStream = process.stdout): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      const lines = chunk.toString('utf8').split('\n').filter((line) => line !== '');
      out.write(lines.map((line) => `${toLogfmt(line)}\n`).join(''));
      done();
    },
  });
}

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

export function toLogfmt(jsonLine: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine;
  }
  const { time, level, msg, ...rest } = record;
  const pairs: string[] = [];
  if (time !== undefined) pairs.push(`ts=${value(time)}`);
  if (level !== undefined) pairs.push(`level=${typeof level === 'number' ? (LEVELS[level] ?? level) : value(level)}`);
  if (msg !== undefined) pairs.push(`msg=${value(msg)}`);
  flatten('', rest, pairs);
  return pairs.join(' ');
}

function flatten(prefix: string, object: Record<string, unknown>, pairs: string[]): void {
  for (const [key, v] of Object.entries(object)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(name, v as Record<string, unknown>, pairs);
    else pairs.push(`${name.replace(/[\s="]/g, '_')}=${value(v)}`);
  }
}

function value(v: unknown): string {
  const text = typeof v === 'string' ? v : JSON.stringify(v) ?? 'null';
  return text === '' || /[\s="\\]/.test(text) ? JSON.stringify(text) : text;
}
