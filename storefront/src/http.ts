// Small HTTP helpers: content negotiation and body reading, without a framework.

import type { IncomingMessage } from 'node:http';

/**
 * Does the Accept header allow an application/json answer? A missing or empty
 * header allows anything. The most specific matching range decides
 * (application/json > application/* > *\/*); it must have q > 0.
 */
export function acceptsJson(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  let best: { specificity: number; q: number } | undefined;
  for (const range of header.split(',')) {
    const [typePart = '', ...params] = range.split(';');
    const type = typePart.trim().toLowerCase();
    const specificity = type === 'application/json' ? 2 : type === 'application/*' ? 1 : type === '*/*' ? 0 : -1;
    if (specificity < 0) continue;
    let q = 1;
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq < 0 || p.slice(0, eq).trim().toLowerCase() !== 'q') continue;
      const v = p.slice(eq + 1).trim();
      q = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/.test(v) ? Number(v) : 0; // malformed q: not acceptable
    }
    if (best === undefined || specificity > best.specificity) best = { specificity, q };
    else if (specificity === best.specificity) best.q = Math.max(best.q, q);
  }
  return best !== undefined && best.q > 0;
}

/** Is this Content-Type application/json (any case), with no charset other than UTF-8? */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [typePart = '', ...params] = header.split(';');
  if (typePart.trim().toLowerCase() !== 'application/json') return false;
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    if (p.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return false;
  }
  return true;
}

export type BodyResult = { kind: 'ok'; body: Buffer } | { kind: 'too-large' } | { kind: 'aborted' };

/** How much of an oversized body is read and thrown away (so the client can read the 413) before the socket is cut. */
const DRAIN_CAP = 16 * 1024 * 1024;

/**
 * Read the request body up to `limit` bytes. Past the limit nothing more is
 * kept; the rest is drained (up to a cap) and the result is 'too-large'.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (r: BodyResult): void => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (settled) {
        if (size > limit + DRAIN_CAP) req.socket.destroy();
        return;
      }
      if (size > limit) {
        chunks.length = 0;
        settle({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => settle({ kind: 'ok', body: Buffer.concat(chunks, size) }));
    req.on('error', () => settle({ kind: 'aborted' }));
    req.on('close', () => settle({ kind: 'aborted' }));
  });
}

/** Throw away a request body we will not read (up to a cap), so the client can read our answer. */
export function drainRequest(req: IncomingMessage): void {
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > DRAIN_CAP) req.socket.destroy();
  });
  req.on('error', () => undefined);
  req.resume();
}

/** How many times a request carries the header `name` (lower case), as the client sent it. */
export function headerCount(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) count++;
  return count;
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
