import type { BrokerInfo } from '../../broker/broker-info.js';
import type { LeftOutRequest } from '../../broker/failure-cause.js';
import type { TargetSetup } from '../../config/exporter-config.js';
import type { DropReason } from '../../exposition/sample-sink.js';
import type { WireError, WireFamilies } from './wire.js';

/** One poll of one collector, as the poll thread is asked for it. */
export interface ThreadJob {
  /** Which running target (a reload's replacement is another): the thread keeps its client and carry-over by it. */
  readonly target: string;
  readonly setup: TargetSetup;
  readonly collector: string;
  readonly broker: BrokerInfo;
  /** Time left until the poll's deadline: each thread has its own clock origin. */
  readonly remainingMs: number;
  readonly logLevel: string;
}

/** What a poll's requests added to the target's client counters (served as the exporter's own series). */
export interface ClientCounts {
  readonly requests: number;
  readonly bytesRead: number;
}

export type ToThread =
  | ({ readonly kind: 'poll'; readonly id: number; readonly logFormat: 'json' | 'logfmt' } & ThreadJob)
  /** The poll's signal aborted on the main thread (its deadline, a stop). */
  | { readonly kind: 'abort'; readonly id: number }
  /** The target stopped: the thread lets go of its client and carry-over. */
  | { readonly kind: 'forget'; readonly target: string };

export type FromThread =
  | {
      readonly kind: 'done';
      readonly id: number;
      readonly families: WireFamilies;
      readonly skipped: number;
      readonly dropped: [DropReason, number][];
      readonly leftOut: readonly LeftOutRequest[];
      readonly counts: ClientCounts;
    }
  | { readonly kind: 'failed'; readonly id: number; readonly error: WireError; readonly counts: ClientCounts };
