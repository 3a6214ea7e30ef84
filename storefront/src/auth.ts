// Who may call the service: holders of a bearer token (API key) from the configuration.
// Tokens are compared as SHA-256 digests with timingSafeEqual against every configured
// token, so the time taken says nothing about how much of a token was right, or which.

import { createHash, timingSafeEqual } from 'node:crypto';

export type AuthConfig =
  | { kind: 'tokens'; tokens: readonly string[] }
  /** No authentication; only allowed bound to a loopback address (STOREFRONT_AUTH=none-local-only). */
  | { kind: 'none-local-only' };

export const MIN_TOKEN_LENGTH = 16;
export const WWW_AUTHENTICATE = 'Bearer realm="storefront"';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** A check of an Authorization header; always true without authentication. */
export function createAuthenticator(auth: AuthConfig): (authorization: string | undefined) => boolean {
  if (auth.kind === 'none-local-only') return () => true;
  const known = auth.tokens.map(digest);
  return (authorization) => {
    const m = /^Bearer +([^ ]+) *$/i.exec(authorization ?? '');
    const presented = digest(m?.[1] ?? '');
    let ok = false;
    for (const k of known) ok = timingSafeEqual(k, presented) || ok; // no early exit
    return ok && m !== null;
  };
}

/** Is this bind address loopback-only? */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Tokens from a file's text: one per line; blank lines and lines starting with # are ignored. */
export function parseTokens(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}
