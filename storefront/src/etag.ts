// Strong entity tags and If-Match evaluation (RFC 9110 §8.8.3, §13.1.1).

import { createHash } from 'node:crypto';

/**
 * Strong ETag of a stored record: a SHA-256 of its exact stored serialisation
 * (which includes the password hash and its random salt), so any write changes
 * it and it is stable across restarts without extra state.
 */
export function computeEtag(storedSerialisation: string): string {
  const digest = createHash('sha256').update(storedSerialisation, 'utf8').digest('base64url');
  return `"${digest.slice(0, 32)}"`;
}

/** A parsed If-Match header: `*`, or a list of entity tags (weak ones never match). */
export type Precondition = { kind: 'any' } | { kind: 'tags'; strong: string[] };

const ENTITY_TAG = /^(W\/)?("[\x21\x23-\x7e\x80-\xff]*")$/;

/**
 * Parse an If-Match header value; undefined when absent. A malformed list yields
 * a precondition that matches nothing (so the request gets 412, never a blind write).
 */
export function parseIfMatch(header: string | undefined): Precondition | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (trimmed === '*') return { kind: 'any' };
  const strong: string[] = [];
  for (const part of trimmed.split(',')) {
    const m = ENTITY_TAG.exec(part.trim());
    if (m === null) return { kind: 'tags', strong: [] };
    if (m[1] === undefined && m[2] !== undefined) strong.push(m[2]);
  }
  return { kind: 'tags', strong };
}

/** Strong comparison, as If-Match requires. */
export function preconditionHolds(pre: Precondition | undefined, currentEtag: string): boolean {
  if (pre === undefined || pre.kind === 'any') return true;
  return pre.strong.includes(currentEtag);
}
