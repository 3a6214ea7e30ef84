import { carried } from '../kit/carried.js';
import { eachInTurns } from '../kit/in-turns.js';
import type { QueueRecord } from './options.js';
import { LabelBlock } from '../../exposition/sample-sink.js';

const QUEUE_LABELS = ['vhost', 'queue'] as const;

/** A queue's label blocks: of its series, and of its rabbitmq_queue_info series (re-rendered when its values change). */
export interface QueueBlocks {
  readonly series: LabelBlock;
  info: LabelBlock | undefined;
  /** The poll that last served the queue: a second record of it in the same poll is a duplicate. */
  servedIn: number;
}

/**
 * Each queue's label blocks, kept from one poll to the next: rendered when the queue is first
 * seen, not on every poll (at 100,000 queues that was ~0.2 CPU-s a poll). Kept by vhost and name
 * in place, stamped with the poll that served them, rather than copied into a new map each poll.
 * A successful poll lets go of the queues it did not serve (except those of vhosts it could not
 * read); a failed poll lets go of nothing.
 */
export class QueueLabelBlocks {
  private readonly byVhost = new Map<string, Map<string, QueueBlocks>>();
  private poll = 0;
  /** The vhost of the last queue looked up: a poll's queues come vhost by vhost. */
  private lastVhost: string | undefined;
  private lastNames: Map<string, QueueBlocks> | undefined;

  static in(carryOver: Map<string, unknown>): QueueLabelBlocks {
    const blocks = carried(carryOver, 'label-blocks', () => new QueueLabelBlocks());
    blocks.poll++;
    return blocks;
  }

  /**
   * The blocks of a named queue (vhost and name are strings: fetch.ts keeps only those); undefined
   * when the queue was already served this poll (a duplicate: each queue's series are written once).
   */
  of(queue: QueueRecord): QueueBlocks | undefined {
    const vhost = queue.vhost as string;
    const name = queue.name as string;
    if (vhost !== this.lastVhost || !this.lastNames) {
      this.lastVhost = vhost;
      this.lastNames = this.byVhost.get(vhost);
      if (!this.lastNames) {
        this.lastNames = new Map();
        this.byVhost.set(vhost, this.lastNames);
      }
    }
    let blocks = this.lastNames.get(name);
    if (!blocks) {
      blocks = { series: new LabelBlock(QUEUE_LABELS, [vhost, name]), info: undefined, servedIn: this.poll };
      this.lastNames.set(name, blocks);
      return blocks;
    }
    if (blocks.servedIn === this.poll) return undefined;
    blocks.servedIn = this.poll;
    return blocks;
  }

  /**
   * Ends a successful poll: the queues it did not serve are let go, except those of vhosts in
   * `unread`. With turns: looking at 100,000 queues held the event loop for ~6 ms.
   */
  async commit(unread: ReadonlySet<string> = new Set()): Promise<void> {
    for (const [vhost, names] of this.byVhost) {
      if (unread.has(vhost)) continue;
      await eachInTurns(names, ([name, blocks]) => {
        if (blocks.servedIn !== this.poll) names.delete(name);
      });
      if (names.size === 0) this.byVhost.delete(vhost);
    }
    this.lastVhost = undefined;
    this.lastNames = undefined;
  }
}
