import { createHash } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { NextFunction, Request, Response } from 'express';
import type { WebConfig } from './web-config.js';

/** Paths served to anyone: a liveness probe has no credentials and must not be rate limited. */
const OPEN_PATHS = new Set(['/-/healthy']);

/** A bcrypt hash of a password nobody has: unknown users cost as much as known ones (no timing oracle). */
const DUMMY_HASH = '$2b$10$6EFAeXpR46bR2aLac95qnumXSvZiiNDFR4PDxT7SpTfgfcd12UH2q';

/** Outcomes of bcrypt comparisons, by a digest of user, hash and password; bounded. */
const CACHE_LIMIT = 1024;

/**
 * Response headers, rate limit and basic auth of the web config, as express middleware. `current`
 * is asked on every request, so a reloaded web config applies to the next request. bcrypt runs at
 * most once per (user, hash, password) and one at a time, so scrapes stay fast and wrong
 * passwords cannot take both cores.
 */
export function webGuard(current: () => WebConfig | undefined) {
  const outcomes = new Map<string, boolean>();
  let comparing: Promise<unknown> = Promise.resolve();
  let bucket: { tokens: number; at: number; limit: WebConfig['rateLimit'] } | undefined;

  const allowedByRate = (limit: NonNullable<WebConfig['rateLimit']>): boolean => {
    // Monotonic: a wall clock stepped back would otherwise refuse every scrape until it caught up.
    const now = performance.now();
    if (!bucket || bucket.limit !== limit) bucket = { tokens: limit.burst, at: now, limit };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + (now - bucket.at) / limit.intervalMs);
    bucket.at = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  };

  const verify = async (users: ReadonlyMap<string, string>, user: string, password: string): Promise<boolean> => {
    const hash = users.get(user);
    const key = createHash('sha256').update(`${user}\0${hash ?? ''}\0${password}`).digest('hex');
    const known = outcomes.get(key);
    if (known !== undefined) return known;
    const result = comparing.then(() => bcrypt.compare(password, hash ?? DUMMY_HASH)).then((same) => same && hash !== undefined);
    comparing = result.catch(() => undefined);
    const ok = await result.catch(() => false);
    if (outcomes.size >= CACHE_LIMIT) outcomes.clear();
    outcomes.set(key, ok);
    return ok;
  };

  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const config = current();
    if (!config) return next();
    for (const [name, value] of Object.entries(config.headers)) res.setHeader(name, value);
    if (OPEN_PATHS.has(req.path)) return next();
    if (config.rateLimit && !allowedByRate(config.rateLimit)) {
      res.status(429).type('text/plain').send('too many requests\n');
      return;
    }
    if (config.users.size === 0) return next();
    const credentials = basicCredentials(req.get('authorization'));
    if (credentials && (await verify(config.users, credentials.user, credentials.password))) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="rabbitmq-exporter", charset="UTF-8"');
    res.status(401).type('text/plain').send('unauthorized\n');
  };
}

function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
