import { toSampleValue } from '../../model/sample-sink.js';
import { getPath } from '../kit/field-table.js';
import type { QueueRecord } from './options.js';

/** The counters summed per family, in this order. */
export const FAMILY_COUNTER_FIELDS = ['message_stats.publish', 'message_stats.deliver_get', 'message_stats.ack'] as const;
const PATHS = FAMILY_COUNTER_FIELDS.map((field) => field.split('.'));

interface Member {
  readonly family: string;
  readonly vhost: string;
  readonly counts: number[];
}

/**
 * The families' counters, kept monotonic as Prometheus counters must be: a family's total is the
 * sum over its queues of this statistics poll plus what its queues counted before they went away
 * (a deleted queue's last counts) or before their counters went down (a reset, a leader move).
 * So a deleted queue neither lowers the total nor hides what the others counted in the same poll.
 * A family that has no queue left is forgotten: its series goes, and one that comes back starts
 * again from its queues' counts, which rate() treats as the reset it is.
 */
export class FamilyCounters {
  /** Each queue's counts at the last statistics poll, by vhost and name. */
  private members = new Map<string, Member>();
  private current = new Map<string, Member>();
  /** Per family key: the counts of departed queues and of counters that went down. */
  private readonly departed = new Map<string, number[]>();

  /** One queue of a statistics poll; `family`: its family key (vhost and family). */
  add(family: string, queue: QueueRecord): void {
    const key = `${queue.vhost as string}\u0000${queue.name as string}`;
    // A record without message_stats has counted nothing yet.
    const counts = PATHS.map((path) => toSampleValue(getPath(queue, path)) ?? 0);
    const before = this.members.get(key);
    if (before && before.family !== family) this.depart(before);
    else if (before) {
      const fallen = before.counts.map((count, i) => Math.max(0, count - counts[i]!));
      if (fallen.some((n) => n > 0)) this.addTo(family, fallen);
    }
    this.current.set(key, { family, vhost: queue.vhost as string, counts });
  }

  /**
   * Ends a statistics poll: the queues not seen are departed, except those of vhosts in `unread`
   * (kept as they were); families with no queue left are forgotten. Gives the totals per family key.
   */
  commit(unread: ReadonlySet<string>): Map<string, number[]> {
    for (const [key, member] of this.members) {
      if (this.current.has(key)) continue;
      if (unread.has(member.vhost)) this.current.set(key, member);
      else this.depart(member);
    }
    this.members = this.current;
    this.current = new Map();
    const totals = new Map<string, number[]>();
    for (const member of this.members.values()) {
      const total = totals.get(member.family);
      if (total) for (let i = 0; i < total.length; i++) total[i]! += member.counts[i]!;
      else totals.set(member.family, [...member.counts]);
    }
    for (const family of this.departed.keys()) if (!totals.has(family)) this.departed.delete(family);
    for (const [family, total] of totals) {
      const gone = this.departed.get(family);
      if (gone) for (let i = 0; i < total.length; i++) total[i]! += gone[i]!;
    }
    return totals;
  }

  /** A failed poll: what it saw is not kept. */
  discard(): void {
    this.current = new Map();
  }

  private depart(member: Member): void {
    this.addTo(member.family, member.counts);
  }

  private addTo(family: string, counts: readonly number[]): void {
    const gone = this.departed.get(family);
    if (gone) for (let i = 0; i < gone.length; i++) gone[i]! += counts[i]!;
    else this.departed.set(family, [...counts]);
  }
}
