import { createHash } from 'node:crypto';
import type { BcryptPool } from './bcrypt-pool.js';
import { LruMap } from './lru-map.js';

/** A bcrypt hash of a password nobody has: unknown users cost as much as known ones (no timing oracle). */
const DUMMY_HASH = '$2b$10$6EFAeXpR46bR2aLac95qnumXSvZiiNDFR4PDxT7SpTfgfcd12UH2q';

export interface PasswordCheckLimits {
  /** Comparisons queued or running at once, per worker; past it a new password is refused at once. */
  inFlightPerWorker: number;
  /** Failed comparisons a client may make at once before it is throttled… */
  failureBurst: number;
  /** …and how often it earns one more. */
  failureRefillMs: number;
  /** Credentials remembered as valid (never evicted by wrong ones: those have their own map). */
  verifiedLimit: number;
  /** Credentials remembered as wrong, so a repeated wrong password costs no bcrypt. */
  refusedLimit: number;
  /** Clients whose failures are remembered. */
  clientLimit: number;
  /**
   * How long a refusal waits before it is sent (half of it to all of it, at random): for "busy",
   * and at most for a client out of tries (until its next one). A client that ignores Retry-After then gets one answer a second per
   * connection, instead of thousands of cheap ones that would take the event loop from scrapes.
   */
  refusalPauseMs: number;
}

export const PASSWORD_CHECK_LIMITS: PasswordCheckLimits = {
  inFlightPerWorker: 4,
  failureBurst: 10,
  failureRefillMs: 1000,
  verifiedLimit: 64,
  refusedLimit: 1024,
  clientLimit: 4096,
  refusalPauseMs: 1000,
};

/** `pauseMs`: how long the answer waits before it is sent (0 but for refusals to a pressing client). */
export type CheckOutcome =
  | { verdict: 'valid' }
  | { verdict: 'invalid'; pauseMs: number }
  /** Not checked: too many comparisons in flight. */
  | { verdict: 'busy'; pauseMs: number }
  /** Not checked: this client failed too often; it may try again in `retryAfterS`. */
  | { verdict: 'throttled'; retryAfterS: number; pauseMs: number };

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Decides basic-auth credentials without ever making a known-good one wait: outcomes are remembered
 * by a SHA-256 of user, configured hash and password (the password itself is not kept), valid ones
 * apart from wrong ones, and a remembered outcome is answered before any bound or throttle applies.
 * A credential not seen before goes to the bcrypt workers, unless too many comparisons are in
 * flight or its client has failed too often lately; both are refused at once, without bcrypt.
 */
export class PasswordChecks {
  private readonly verified: LruMap<string, true>;
  private readonly refused: LruMap<string, true>;
  private readonly clients: LruMap<string, Bucket>;
  /** Comparisons under way, by key: the same credential sent twice at once is compared once. */
  private readonly running = new Map<string, Promise<boolean>>();

  constructor(
    private readonly pool: BcryptPool,
    private readonly limits: PasswordCheckLimits = PASSWORD_CHECK_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    this.verified = new LruMap(limits.verifiedLimit);
    this.refused = new LruMap(limits.refusedLimit);
    this.clients = new LruMap(limits.clientLimit);
  }

  async check(users: ReadonlyMap<string, string>, user: string, password: string, client: string): Promise<CheckOutcome> {
    const hash = users.get(user);
    const key = createHash('sha256').update(`${user}\0${hash ?? ''}\0${password}`).digest('base64');
    if (this.verified.get(key)) return { verdict: 'valid' };
    const bucket = this.bucketOf(client);
    if (this.refused.get(key)) {
      // A wrong password sent again costs no bcrypt, but counts as a failure of its client all the same.
      bucket.tokens = Math.max(0, bucket.tokens - 1);
      return { verdict: 'invalid', pauseMs: this.pauseFor(bucket) };
    }
    const same = this.running.get(key);
    if (same) return (await same.catch(() => false)) && hash !== undefined ? { verdict: 'valid' } : { verdict: 'invalid', pauseMs: this.pauseFor(bucket) };

    if (bucket.tokens < 1) {
      return { verdict: 'throttled', retryAfterS: Math.ceil(((1 - bucket.tokens) * this.limits.failureRefillMs) / 1000), pauseMs: this.pauseFor(bucket) };
    }
    if (this.pool.inFlight >= this.limits.inFlightPerWorker * this.pool.size) return { verdict: 'busy', pauseMs: spread(this.limits.refusalPauseMs) };
    // The token is taken now, not after the failure: a client's concurrent guesses all count.
    bucket.tokens -= 1;
    const comparing = this.pool.compare(password, hash ?? DUMMY_HASH);
    this.running.set(key, comparing);
    try {
      const ok = (await comparing) && hash !== undefined;
      if (ok) {
        bucket.tokens = Math.min(this.limits.failureBurst, bucket.tokens + 1);
        this.verified.set(key, true);
      } else {
        this.refused.set(key, true);
      }
      return ok ? { verdict: 'valid' } : { verdict: 'invalid', pauseMs: this.pauseFor(bucket) };
    } finally {
      this.running.delete(key);
    }
  }

  /** Until the client's next try, at most refusalPauseMs; none while it has tries left. */
  private pauseFor(bucket: Bucket): number {
    if (bucket.tokens >= 1) return 0;
    return spread(Math.min(this.limits.refusalPauseMs, Math.ceil((1 - bucket.tokens) * this.limits.failureRefillMs)));
  }

  private bucketOf(client: string): Bucket {
    const now = this.now();
    const bucket = this.clients.get(client) ?? { tokens: this.limits.failureBurst, at: now };
    bucket.tokens = Math.min(this.limits.failureBurst, bucket.tokens + (now - bucket.at) / this.limits.failureRefillMs);
    bucket.at = now;
    this.clients.set(client, bucket);
    return bucket;
  }
}

/**
 * Between half the pause and all of it, at random: connections refused together would otherwise
 * come back together, and their burst of requests would delay a scrape arriving with it.
 */
function spread(pauseMs: number): number {
  return Math.round(pauseMs / 2 + Math.random() * (pauseMs / 2));
}
