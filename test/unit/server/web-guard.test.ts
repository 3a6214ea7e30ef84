// The web config's headers, rate limit and basic auth in front of a real express app. Issue 24:
// bcrypt ran on the main thread (two clients sending new wrong passwords took authenticated
// scrapes from 3 ms to 169 ms), and the outcome cache was cleared whole when full.
import { readdirSync, readFileSync } from 'node:fs';
import bcrypt from 'bcryptjs';
import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newHttpCounters } from '../../../src/pipeline/own-series.js';
import { BcryptPool } from '../../../src/server/bcrypt-pool.js';
import { PASSWORD_CHECK_LIMITS, PasswordChecks, type PasswordCheckLimits } from '../../../src/server/password-checks.js';
import type { WebConfig } from '../../../src/server/web-config.js';
import { webGuard, type WebGuardOptions } from '../../../src/server/web-guard.js';

// A bcrypt hash of "scrape-pw" (cost 4 keeps the tests quick; htpasswd -nBC 10 makes real ones).
const HASH = bcrypt.hashSync('scrape-pw', 4);

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const config = (extra: Partial<WebConfig> = {}): WebConfig => ({ file: 'web.yml', users: new Map([['prometheus', HASH]]), headers: {}, ...extra });

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
  vi.restoreAllMocks();
});

/** An express app behind webGuard(config), answering "ok" on every path. */
async function guarded(current: WebConfig | undefined, options?: WebGuardOptions) {
  const app = express();
  app.use(webGuard(() => current, options));
  app.get(/.*/, (_req, res) => void res.send('ok'));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return {
    get: (path: string, authorization?: string) => fetch(`http://127.0.0.1:${port}${path}`, { headers: authorization ? { authorization } : {} }),
  };
}

/**
 * Password checks on a pool of their own (closed after the test), with some limits changed. Its
 * workers keep the test's priority: at nice 19 (the default, tested below), a worker on a machine
 * the rest of the suite keeps busy got a core seconds late, and a test of 41 logins timed out.
 */
function checks(limits: Partial<PasswordCheckLimits> = {}, workers = 1) {
  const pool = new BcryptPool(workers, false);
  cleanups.push(() => pool.close());
  return { pool, checks: new PasswordChecks(pool, { ...PASSWORD_CHECK_LIMITS, ...limits }) };
}

/** The nice value of each thread of this process (field 19 of /proc/self/task/TID/stat). */
function threadNiceness(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('BcryptPool', () => {
  it.runIf(process.platform === 'linux')('runs its workers at nice 19 by default, so scrapes get a core first; at the process\'s priority when asked', async () => {
    const before = threadNiceness().filter((n) => n === 19).length;
    const low = new BcryptPool(1);
    cleanups.push(() => low.close());
    expect(await low.compare('scrape-pw', HASH)).toBe(true);
    expect(threadNiceness().filter((n) => n === 19)).toHaveLength(before + 1);
    const normal = new BcryptPool(1, false);
    cleanups.push(() => normal.close());
    expect(await normal.compare('scrape-pw', HASH)).toBe(true);
    expect(threadNiceness().filter((n) => n === 19)).toHaveLength(before + 1);
  }, 60_000);
});

describe('webGuard', () => {
  it('lets through the right user and password, refuses the rest with 401 and WWW-Authenticate', async () => {
    const app = await guarded(config(), checks());
    expect((await app.get('/metrics', basic('prometheus', 'scrape-pw'))).status).toBe(200);
    for (const auth of [undefined, basic('prometheus', 'wrong'), basic('nobody', 'scrape-pw'), 'Bearer x', 'Basic !!!']) {
      const res = await app.get('/metrics', auth);
      expect(res.status, String(auth)).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('Basic');
    }
  });

  it('serves /-/healthy and /-/ready to anyone (probes), nothing else', async () => {
    const app = await guarded(config(), checks());
    for (const path of ['/-/healthy', '/-/ready']) expect((await app.get(path)).status, path).toBe(200);
    for (const path of ['/', '/metrics', '/probe', '/-/reload', '/-/ready/x', '/-/healthyx']) expect((await app.get(path)).status, path).toBe(401);
  });

  it('never runs bcrypt on the main thread: the workers compare', async () => {
    const onMain = [vi.spyOn(bcrypt, 'compare'), vi.spyOn(bcrypt, 'compareSync')];
    const { pool, checks: c } = checks();
    const app = await guarded(config(), { checks: c });
    expect((await app.get('/metrics', basic('prometheus', 'scrape-pw'))).status).toBe(200);
    expect((await app.get('/metrics', basic('prometheus', 'wrong'))).status).toBe(401);
    for (const spy of onMain) expect(spy).not.toHaveBeenCalled();
    expect(pool.comparisons).toBe(2);
  });

  it('compares once per user, hash and password, however many scrapes', async () => {
    const { pool, checks: c } = checks();
    const app = await guarded(config(), { checks: c });
    const statuses = await Promise.all(Array.from({ length: 20 }, () => app.get('/metrics', basic('prometheus', 'scrape-pw')).then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(pool.comparisons).toBe(1);
  });

  it('keeps a verified credential however many wrong ones come after it (one eviction at a time, valid ones apart)', async () => {
    const { pool, checks: c } = checks({ failureBurst: 1000, refusedLimit: 8, verifiedLimit: 2, refusalPauseMs: 0 });
    const app = await guarded(config(), { checks: c });
    expect((await app.get('/metrics', basic('prometheus', 'scrape-pw'))).status).toBe(200);
    for (let i = 0; i <= 40; i++) expect((await app.get('/metrics', basic('prometheus', `guess-${i}`))).status).toBe(401);
    const before = pool.comparisons;
    expect((await app.get('/metrics', basic('prometheus', 'scrape-pw'))).status).toBe(200);
    expect(pool.comparisons).toBe(before);
    // The 8 most recent wrong ones are still remembered (the oldest went one by one); the one before them is not.
    for (let i = 33; i <= 40; i++) expect((await app.get('/metrics', basic('prometheus', `guess-${i}`))).status).toBe(401);
    expect(pool.comparisons).toBe(before);
    expect((await app.get('/metrics', basic('prometheus', 'guess-32'))).status).toBe(401);
    expect(pool.comparisons).toBe(before + 1);
  });

  it('throttles a client that keeps failing (429, Retry-After), without bcrypt, while its verified credential still passes', async () => {
    const counters = newHttpCounters();
    const { pool, checks: c } = checks({ failureBurst: 3, failureRefillMs: 60_000, refusalPauseMs: 100 });
    const app = await guarded(config(), { checks: c, counters });
    expect((await app.get('/metrics', basic('prometheus', 'scrape-pw'))).status).toBe(200);
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await app.get('/metrics', basic('prometheus', `guess-${i}`))).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    // Out of tries, its refusals wait: half of refusalPauseMs to all of it.
    const asked = performance.now();
    const throttled = await app.get('/metrics', basic('prometheus', 'guess-again'));
    expect(performance.now() - asked).toBeGreaterThanOrEqual(49);
    expect(throttled.headers.get('retry-after')).toBe('60');
    expect(await throttled.text()).toContain('too many failed logins');
    expect(pool.comparisons).toBe(4);
    expect(counters.authRefusedThrottled).toBe(4);
    expect((await app.get('/metrics', basic('prometheus', 'scrape-pw'))).status).toBe(200);
  });

  it('a remembered wrong password costs its client a try all the same: sent again and again, it leaves none for a new guess', async () => {
    const { pool, checks: c } = checks({ failureBurst: 3, failureRefillMs: 60_000, refusalPauseMs: 0 });
    const users = new Map([['prometheus', HASH]]);
    expect((await c.check(users, 'prometheus', 'guess', 'client-a')).verdict).toBe('invalid');
    // Remembered: no bcrypt, but a try each.
    expect((await c.check(users, 'prometheus', 'guess', 'client-a')).verdict).toBe('invalid');
    expect((await c.check(users, 'prometheus', 'guess', 'client-a')).verdict).toBe('invalid');
    expect(pool.comparisons).toBe(1);
    expect((await c.check(users, 'prometheus', 'another-guess', 'client-a')).verdict).toBe('throttled');
    // Another client has its own tries.
    expect((await c.check(users, 'prometheus', 'another-guess', 'client-b')).verdict).toBe('invalid');
  });

  it('a credential is remembered with the configured hash: a verified password is compared again once the user\'s hash changes', async () => {
    const { pool, checks: c } = checks();
    expect((await c.check(new Map([['prometheus', HASH]]), 'prometheus', 'scrape-pw', 'client')).verdict).toBe('valid');
    // The web config reloaded with another password for the user: the old one no longer passes.
    const changed = new Map([['prometheus', bcrypt.hashSync('new-pw', 4)]]);
    expect((await c.check(changed, 'prometheus', 'scrape-pw', 'client')).verdict).toBe('invalid');
    expect((await c.check(changed, 'prometheus', 'new-pw', 'client')).verdict).toBe('valid');
    expect(pool.comparisons).toBe(3);
  });

  it('bounds the checks in flight: past it a new password gets 429 at once, a verified one 200', async () => {
    // Cost 12: each comparison takes long enough that all the guesses arrive while the first ones run.
    const slow = bcrypt.hashSync('scrape-pw', 12);
    const counters = newHttpCounters();
    const { pool, checks: c } = checks({ inFlightPerWorker: 2, refusalPauseMs: 100 });
    const app = await guarded(config({ users: new Map([['prometheus', slow]]) }), { checks: c, counters });
    expect((await app.get('/metrics', basic('prometheus', 'scrape-pw'))).status).toBe(200);
    const guesses = Array.from({ length: 8 }, (_, i) => app.get('/metrics', basic('prometheus', `guess-${i}`)));
    // The refused ones answer before the two being compared do.
    const refused = await Promise.race(guesses.map(async (g) => ((await g).status === 429 ? g : new Promise<never>(() => undefined))));
    expect(refused.headers.get('retry-after')).toBe('1');
    const started = Date.now();
    expect((await app.get('/metrics', basic('prometheus', 'scrape-pw'))).status).toBe(200);
    expect(pool.inFlight).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(1000);
    const statuses = (await Promise.all(guesses)).map((r) => r.status).sort();
    expect(statuses).toEqual([401, 401, 429, 429, 429, 429, 429, 429]);
    expect(counters.authRefusedBusy).toBe(6);
    expect(pool.comparisons).toBe(3);
  }, 30_000);

  it('sets the configured headers and applies the rate limit (burst, then 429)', async () => {
    const app = await guarded(config({ users: new Map(), headers: { 'X-Frame-Options': 'deny' }, rateLimit: { intervalMs: 60_000, burst: 2 } }), checks());
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await app.get('/metrics')).status);
    const healthy = await app.get('/-/healthy');
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(healthy.status).toBe(200);
    expect(healthy.headers.get('x-frame-options')).toBe('deny');
  });

  it('does nothing without a web config', async () => {
    expect((await (await guarded(undefined, checks())).get('/metrics')).status).toBe(200);
  });
});
