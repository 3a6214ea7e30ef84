import { toSampleValue } from '../../exposition/sample-sink.js';
import { getPath } from '../kit/field-table.js';
import type { QueueRecord } from './options.js';

/** The counters summed per family, in this order. */
export const FAMILY_COUNTER_FIELDS = ['message_stats.publish', 'message_stats.deliver_get', 'message_stats.ack'] as const;
const PATHS = FAMILY_COUNTER_FIELDS.map((field) => field.split('.'));

/** One queue: its counts (FAMILY_COUNTER_FIELDS) at the last statistics poll that listed it, in fields rather than an array (100,000 arrays were 7.7 MB). */
interface Member {
  family: string;
  /** The poll that last listed it. */
  seen: number;
  c0: number;
  c1: number;
  c2: number;
}
const countsOf = (m: Member) => [m.c0, m.c1, m.c2];

/**
 * The families' counters, kept monotonic as Prometheus counters must be: a family's total is the
 * sum over its queues of this statistics poll plus what its queues counted before they went away
 * (a deleted queue's last counts) or before their counters went down (a reset, a leader move).
 * So a deleted queue neither lowers the total nor hides what the others counted in the same poll.
 * A family that has no queue left is forgotten: its series goes, and one that comes back starts
 * again from its queues' counts, which rate() treats as the reset it is.
 * Each queue's entry is made once and updated in place, poll after poll: at 100,000 queues a new
 * entry per queue and poll was tens of MB that outlived the poll and grew the heap.
 */
export class FamilyCounters {
  /** Each queue's counts at the last statistics poll, by vhost, then name. */
  private readonly members = new Map<string, Map<string, Member>>();
  /** Per family key: the counts of departed queues and of counters that went down. */
  private readonly departed = new Map<string, number[]>();
  private poll = 0;

  /** Starts a poll. Counts read by a poll that then fails are kept: they are the broker's, and a total only grows from them. */
  begin(): void {
    this.poll++;
  }

  /** One queue of a statistics poll; `family`: its family key (vhost and family). */
  add(family: string, queue: QueueRecord): void {
    const vhost = queue.vhost as string;
    let byName = this.members.get(vhost);
    if (!byName) {
      byName = new Map();
      this.members.set(vhost, byName);
    }
    const name = queue.name as string;
    const member = byName.get(name);
    // A record without message_stats has counted nothing yet.
    const c0 = countAt(queue, PATHS[0]!);
    const c1 = countAt(queue, PATHS[1]!);
    const c2 = countAt(queue, PATHS[2]!);
    if (!member) {
      byName.set(name, { family, seen: this.poll, c0, c1, c2 });
      return;
    }
    if (member.family !== family) {
      this.addTo(member.family, countsOf(member));
      member.family = family;
    } else {
      if (member.c0 > c0) this.addOne(family, 0, member.c0 - c0);
      if (member.c1 > c1) this.addOne(family, 1, member.c1 - c1);
      if (member.c2 > c2) this.addOne(family, 2, member.c2 - c2);
    }
    member.c0 = c0;
    member.c1 = c1;
    member.c2 = c2;
    member.seen = this.poll;
  }

  /**
   * Ends a statistics poll: the queues not seen are departed, except those of vhosts in `unread`
   * (kept as they were); families with no queue left are forgotten. Gives the totals per family key.
   */
  commit(unread: ReadonlySet<string>): Map<string, number[]> {
    const totals = new Map<string, number[]>();
    for (const [vhost, byName] of this.members) {
      const kept = unread.has(vhost);
      for (const [name, member] of byName) {
        if (member.seen !== this.poll && !kept) {
          this.addTo(member.family, countsOf(member));
          byName.delete(name);
          continue;
        }
        const total = totals.get(member.family);
        if (total) {
          total[0]! += member.c0;
          total[1]! += member.c1;
          total[2]! += member.c2;
        } else totals.set(member.family, countsOf(member));
      }
      if (byName.size === 0) this.members.delete(vhost);
    }
    for (const family of this.departed.keys()) if (!totals.has(family)) this.departed.delete(family);
    for (const [family, total] of totals) {
      const gone = this.departed.get(family);
      if (gone) for (let i = 0; i < total.length; i++) total[i]! += gone[i]!;
    }
    return totals;
  }

  private addTo(family: string, counts: readonly number[]): void {
    for (let i = 0; i < counts.length; i++) this.addOne(family, i, counts[i]!);
  }

  private addOne(family: string, i: number, count: number): void {
    let gone = this.departed.get(family);
    if (!gone) {
      gone = PATHS.map(() => 0);
      this.departed.set(family, gone);
    }
    gone[i]! += count;
  }
}

function countAt(queue: QueueRecord, path: readonly string[]): number {
  return toSampleValue(getPath(queue, path)) ?? 0;
}
