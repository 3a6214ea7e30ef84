import type { ManagementClient } from './management-client.js';
import { brokerInfoFromOverview, type BrokerInfo } from './broker-info.js';
import { ManagementError } from './errors.js';

/** One reading of /api/overview: the answer, and what it says the broker is. */
export interface BrokerReport {
  readonly overview: Record<string, unknown>;
  readonly info: BrokerInfo;
}

/** Checks and parses an /api/overview answer, once. */
export function brokerReport(overview: unknown): BrokerReport {
  if (overview === null || typeof overview !== 'object' || Array.isArray(overview)) {
    throw new Error('/api/overview did not answer a JSON object');
  }
  const record = overview as Record<string, unknown>;
  return { overview: record, info: brokerInfoFromOverview(record) };
}

/**
 * What a target's broker says about itself. Each poll of the collector that describes the broker
 * (the overview) reads /api/overview here once; the record goes to that collector's rows and its
 * BrokerInfo to every other collector. A collector that runs before the first such poll waits for
 * a reading of its own, shared by all that ask at once.
 */
export class BrokerInfoReader {
  private info: BrokerInfo | undefined;
  private pending: Promise<BrokerReport> | undefined;
  /** Why the last reading failed, until one succeeds (none has yet). */
  private failure: { error: unknown } | undefined;

  constructor(private readonly client: ManagementClient) {}

  get current(): BrokerInfo | undefined {
    return this.info;
  }

  /** Reads /api/overview (one request; callers at once share it) and records what it says. */
  read(signal: AbortSignal): Promise<BrokerReport> {
    this.pending ??= this.client
      .getJson<unknown>('/api/overview', undefined, { signal, lane: 'overview' })
      .then((answer) => {
        const report = brokerReport(answer);
        this.info = report.info;
        this.failure = undefined;
        return report;
      })
      .catch((error: unknown) => {
        // The same failure again keeps the first one: a fleet's refused targets fail alike on every
        // poll, and each new error held for an interval (its stack frames with it) went to the old generation.
        if (!sameFailure(this.failure?.error, error)) this.failure = { error };
        throw error;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /**
   * The latest BrokerInfo, read first if there is none yet. While the broker has never answered
   * and its last reading failed, that failure is the answer, without a request: the collector
   * describing the broker keeps asking on its interval. A fleet of 10,000 targets that are down
   * made one failing request per collector, fifteen per target, instead of one.
   */
  async latest(signal: AbortSignal): Promise<BrokerInfo> {
    if (this.info) return this.info;
    if (this.failure) throw this.failure.error;
    return (await this.read(signal)).info;
  }
}

/** Two failures a caller cannot tell apart: the same kind of ManagementError with the same message. */
function sameFailure(held: unknown, next: unknown): boolean {
  return held instanceof ManagementError && next instanceof ManagementError && held.kind === next.kind && held.status === next.status && held.message === next.message;
}
