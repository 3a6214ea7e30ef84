import { exporterMetrics as E } from '../exporter/metrics.js';
import { absence } from '../../broker/absence.js';
import { ManagementError } from '../../broker/errors.js';
import { duration } from '../../model/duration.js';
import type { LeftOutRequest } from '../../broker/failure-cause.js';
import { carried } from './carried.js';
import type { CollectContext, RequestLimits } from './collector.js';
import { failureReason, PartCutOff, partFailureCause, partsCutOff, partTimeoutMs } from './optional-part.js';
import { whoAmI } from './optional-requests.js';

/**
 * Lists read one vhost at a time (queues; connections, channels and consumers of listed vhosts)
 * are partial, not all-or-nothing: each vhost's request has a deadline of its own inside the
 * poll, and a vhost that fails, times out or is refused leaves the others served fresh. Its own
 * series are served from its last good answer (the collector's last served families) until the
 * collector's max_age, and rabbitmq_exporter_collector_vhost_failed says which and why. A vhost
 * that failed is asked again after 1, 2, 4, then every 8 polls, so a refused one costs little.
 * The poll fails only when every vhost it asked for failed.
 */

/** `vhost_timeout` of a collector reading per vhost: one vhost's request, from when it is sent. */
export const vhostTimeoutSchema = duration.refine((ms) => ms > 0, 'must be longer than 0').optional();

/** Polls skipped after the n-th failure in a row: 1, 2, 4, then 8. */
const MAX_SKIPPED_POLLS = 8;

interface VhostStatus {
  /** Date.now() and performance.now() of its last good answer. */
  lastGoodAt?: number;
  lastGoodMono?: number;
  /** `leftOut`: what the landing page says of it while it fails (ctx.leftOut). */
  failure?: { reason: string; inARow: number; skipPolls: number; leftOut: LeftOutRequest };
}

/** What one collector knows of each vhost across polls (in its carryOver). */
class VhostHealth {
  readonly vhosts = new Map<string, VhostStatus>();
}

export interface VhostReaderOptions {
  /** What is read, for log lines: "queues", "connections". */
  what: string;
  /** The collector option that leaves vhosts out, for the refusal's log line. */
  vhostsSetting: string;
  /** collectors.<name>.vhost_timeout, when set. */
  timeoutMs: number | undefined;
}

/**
 * One poll's per-vhost reads for one collector: `order()` the vhosts to ask, `read()` each
 * (undefined: not read, its series are held), `finish()` at the end of the poll.
 */
export class VhostReader {
  private readonly health: VhostHealth;
  private readonly cutOff: AbortSignal | undefined;
  private readonly requestTimeoutMs: number | undefined;
  private answered = 0;
  /** The first failure that was a vhost's own (its deadline, a refusal), not the poll's cut-off. */
  private firstOwnError: unknown;
  /** A request the poll's cut-off ended, when no vhost failed on its own. */
  private firstCutOff: unknown;
  /** Whether this poll reads per vhost at all (order() was called). */
  private perVhost = false;

  constructor(
    private readonly ctx: CollectContext<unknown>,
    private readonly collector: string,
    private readonly options: VhostReaderOptions,
  ) {
    this.health = carried(ctx.carryOver, 'vhost health', () => new VhostHealth());
    this.cutOff = partsCutOff(ctx);
    this.requestTimeoutMs = partTimeoutMs(ctx, options.timeoutMs);
  }

  /** The vhosts whose list failed, this poll or before (and so was not read this poll). */
  get unread(): ReadonlySet<string> {
    return new Set([...this.health.vhosts].filter(([, status]) => status.failure).map(([vhost]) => vhost));
  }

  /** Limits of each vhost's request. */
  get limits(): RequestLimits {
    return { timeoutMs: this.requestTimeoutMs, signal: this.cutOff };
  }

  /**
   * The vhosts to ask this poll: those the poll's deadline cut off last time first (so the same
   * ones are not always last), then the others in the order given; those backing off are left out.
   */
  order(vhosts: readonly string[]): string[] {
    this.perVhost = true;
    const unique = [...new Set(vhosts)];
    const listed = new Set(unique);
    for (const vhost of this.health.vhosts.keys()) if (!listed.has(vhost)) this.health.vhosts.delete(vhost);
    const asked: string[] = [];
    for (const vhost of unique) {
      const failure = this.health.vhosts.get(vhost)?.failure;
      if (failure && failure.skipPolls > 0) {
        failure.skipPolls--;
        continue;
      }
      if (failure?.reason === 'poll_deadline') asked.unshift(vhost);
      else asked.push(vhost);
    }
    return asked;
  }

  /**
   * Reads one vhost's list with `fetch`: its records, or undefined when it failed (recorded and
   * logged). With `onMissing` (vhosts named in the configuration), a 404 means the vhost does not
   * exist: [] and `onMissing` is told. Without it (vhosts /api/vhosts just listed), a 404 is a
   * failure too: a vhost deleted since, or one the user may not read, which 4.3 answers 404 where
   * 3.10 and 4.0 answer 401. Throws what is not the vhost's own trouble: the poll stopping, or
   * credentials that fail everywhere.
   */
  async read<T>(vhost: string, fetch: (limits: RequestLimits) => Promise<T[]>, onMissing?: (vhost: string) => void): Promise<T[] | undefined> {
    try {
      const records = await fetch(this.limits);
      this.succeeded(vhost);
      return records;
    } catch (error) {
      const meaning = absence(error);
      if (meaning === 'absent' && onMissing) {
        this.succeeded(vhost);
        onMissing?.(vhost);
        return [];
      }
      if (this.ctx.signal.aborted) throw error;
      const user = meaning !== undefined ? await whoAmI(this.ctx) : undefined;
      // Refused while /api/whoami fails too: the credentials are wrong, not this vhost's permissions.
      if (meaning === 'refused' && user === undefined) throw error;
      const reason = failureReason(error, this.cutOff);
      if (reason === 'poll_deadline') this.firstCutOff ??= error;
      else this.firstOwnError ??= error;
      this.failed(vhost, reason, error, user?.name);
      return undefined;
    }
  }

  private succeeded(vhost: string): void {
    this.answered++;
    const status = this.statusOf(vhost);
    if (status.failure) this.ctx.log.info({ vhost, reason: status.failure.reason }, `vhost ${JSON.stringify(vhost)} answers again: its ${this.options.what} are fresh`);
    status.failure = undefined;
    status.lastGoodAt = Date.now();
    status.lastGoodMono = performance.now();
  }

  private failed(vhost: string, reason: string, error: unknown, user: unknown): void {
    const status = this.statusOf(vhost);
    const previous = status.failure;
    // The poll's deadline is not the vhost's fault: asked again at once, first.
    const inARow = reason === 'poll_deadline' ? 0 : (previous?.inARow ?? 0) + 1;
    status.failure = {
      reason,
      inARow,
      skipPolls: inARow === 0 ? 0 : Math.min(2 ** (inARow - 1), MAX_SKIPPED_POLLS),
      leftOut: {
        path: error instanceof ManagementError ? error.pathname : `${this.options.what} of vhost ${vhost}`,
        cause: partFailureCause(error, reason === 'poll_deadline'),
        why: `vhost ${JSON.stringify(vhost)}: ${error instanceof Error ? error.message : String(error)}`,
      },
    };
    if (previous?.reason === reason) return;
    const held = status.lastGoodAt === undefined ? 'it has no series yet' : `its series stay as last read (for up to max_age)`;
    const fields = { vhost, reason, cause: error instanceof Error ? error.message : String(error) };
    if (reason === 'http_401' || reason === 'http_403' || reason === 'http_404') {
      const name = typeof user === 'string' ? user : 'the exporter\'s user';
      const cause =
        reason === 'http_404'
          ? `vhost ${JSON.stringify(vhost)}, listed by /api/vhosts, answered 404: it was deleted since, or the exporter's user ${JSON.stringify(name)} may not read it (RabbitMQ 4.3 answers 404 where 3.10 and 4.0 answer 401)`
          : `the exporter's user ${JSON.stringify(name)} may not read vhost ${JSON.stringify(vhost)}`;
      this.ctx.log.warn(
        { ...fields, user: name },
        `${cause}: ${held}, the other vhosts are served. ` +
          `Grant it access to that vhost (any permissions, even none: rabbitmqctl set_permissions -p ${JSON.stringify(vhost)} ${JSON.stringify(name)} '^$' '^$' '^$'; ` +
          `the user also needs the monitoring tag), or leave the vhost out with ${this.options.vhostsSetting}. Asked again after 1, 2, 4, then every 8 polls.`,
      );
    } else {
      const setting = reason === 'timeout' ? ` (collectors.${this.collector}.vhost_timeout: ${this.requestTimeoutMs} ms)` : reason === 'poll_deadline' ? ` (collectors.${this.collector}.timeout)` : '';
      this.ctx.log.warn(fields, `the ${this.options.what} of vhost ${JSON.stringify(vhost)} could not be read${setting}: ${held}, the other vhosts are served`);
    }
  }

  private statusOf(vhost: string): VhostStatus {
    let status = this.health.vhosts.get(vhost);
    if (!status) {
      status = {};
      this.health.vhosts.set(vhost, status);
    }
    return status;
  }

  /**
   * Ends the poll's reads: fails it when every vhost asked failed; else writes which vhosts
   * failed and serves their series of the last successful poll, up to the collector's max_age.
   * Call it last, after every fresh series is written.
   */
  finish(): void {
    // A poll that read one list (the vhost filter or their number changed): nothing of earlier per-vhost reads stands.
    if (!this.perVhost) this.health.vhosts.clear();
    const failing = [...this.health.vhosts.values()].filter((status) => status.failure).length;
    if (this.answered === 0 && failing > 0) {
      // A vhost's own failure says more than the cut-off that ended the others; a poll whose
      // vhosts were all cut off failed on its deadline, whichever timer fired first.
      if (this.firstOwnError !== undefined) throw this.firstOwnError;
      if (this.firstCutOff !== undefined) throw new PartCutOff(`the ${this.options.what} lists`, { cause: this.firstCutOff });
      throw new Error(`the ${this.options.what} of no vhost could be read: every vhost failed and waits to be asked again`);
    }
    const { sink } = this.ctx;
    const maxAgeMs = this.ctx.limits?.maxAgeMs ?? Infinity;
    const now = performance.now();
    const held = new Set<string>();
    for (const [vhost, status] of this.health.vhosts) {
      if (!status.failure) continue;
      sink.add(E.vhostFailed, { collector: this.collector, vhost, reason: status.failure.reason }, 1);
      // The collector is partial on the landing page while a vhost fails, asked this poll or backing off.
      this.ctx.leftOut?.(status.failure.leftOut);
      if (status.lastGoodAt === undefined || status.lastGoodMono === undefined) continue;
      sink.add(E.vhostLastSuccess, { collector: this.collector, vhost }, status.lastGoodAt / 1000);
      if (now - status.lastGoodMono <= maxAgeMs) held.add(vhost);
    }
    if (held.size > 0 && this.ctx.lastServed) sink.carry(this.ctx.lastServed, (vhost) => held.has(vhost), new Set([E.vhostFailed, E.vhostLastSuccess]));
  }
}
