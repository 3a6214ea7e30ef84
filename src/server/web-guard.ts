import { setTimeout as sleep } from 'node:timers/promises';
import type { NextFunction, Request, Response } from 'express';
import type { HttpCounters } from '../pipeline/own-series.js';
import { BcryptPool } from './bcrypt-pool.js';
import { PasswordChecks } from './password-checks.js';
import type { WebConfig } from './web-config.js';

/**
 * Paths served to anyone, without the rate limit: Kubernetes' probes carry no credentials (a
 * probe's headers are plain text in the pod spec, never a Secret). They tell only what a probe's
 * status tells: the process runs (/-/healthy), every target has finished its first poll (/-/ready).
 */
export const UNAUTHENTICATED_PATHS: ReadonlySet<string> = new Set(['/-/healthy', '/-/ready']);

export interface WebGuardOptions {
  /** Where refusals without a password check are counted. */
  counters?: Pick<HttpCounters, 'authRefusedBusy' | 'authRefusedThrottled'>;
  /** The password checks (tests give their own pool and limits). */
  checks?: PasswordChecks;
}

/**
 * Response headers, rate limit and basic auth of the web config, as express middleware. `current`
 * is asked on every request, so a reloaded web config applies to the next request. Passwords are
 * checked by PasswordChecks: bcrypt on worker threads, a credential already verified answered at
 * once, and new ones refused with 429 past a bound instead of queued. A refusal to a client that
 * keeps failing is sent after a pause (a timer, no work), so it cannot ask for thousands a second.
 */
export function webGuard(current: () => WebConfig | undefined, { counters, checks = new PasswordChecks(new BcryptPool()) }: WebGuardOptions = {}) {
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

  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const config = current();
    if (!config) return next();
    for (const [name, value] of Object.entries(config.headers)) res.setHeader(name, value);
    if (UNAUTHENTICATED_PATHS.has(req.path)) return next();
    if (config.rateLimit && !allowedByRate(config.rateLimit)) {
      res.status(429).type('text/plain').send('too many requests\n');
      return;
    }
    if (config.users.size === 0) return next();
    const credentials = basicCredentials(req.get('authorization'));
    const outcome = credentials ? await checks.check(config.users, credentials.user, credentials.password, req.socket.remoteAddress ?? '') : undefined;
    if (outcome?.verdict === 'valid') return next();
    if (outcome && outcome.pauseMs > 0) {
      await sleep(outcome.pauseMs);
      if (req.socket.destroyed) return;
    }
    if (outcome?.verdict === 'busy') {
      if (counters) counters.authRefusedBusy++;
      res.status(429).set('Retry-After', '1').type('text/plain').send('too many password checks in progress: try again in a second\n');
      return;
    }
    if (outcome?.verdict === 'throttled') {
      if (counters) counters.authRefusedThrottled++;
      res.status(429).set('Retry-After', String(outcome.retryAfterS)).type('text/plain').send(`too many failed logins from this client: try again in ${outcome.retryAfterS} s\n`);
      return;
    }
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
