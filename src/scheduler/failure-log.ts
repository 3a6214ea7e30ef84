import type { Logger } from 'pino';

/**
 * Poll failures of one target, logged once per cause and change of state rather than once per
 * collector and poll: a wrong password fails every collector with the same 401, which is one
 * fact for the operator. A collector failing with a cause the target already reported logs at
 * debug level; the cause is logged again when it changes, and its end when no collector has it.
 */
export class PollFailureLog {
  /** Collector name → the cause of its current run of failures. */
  private readonly causes = new Map<string, string>();

  constructor(private readonly log: Logger) {}

  failed(collector: string, cause: string, fields: Record<string, unknown>): void {
    const previous = this.causes.get(collector);
    this.causes.set(collector, cause);
    const alreadyReported = previous === cause || [...this.causes].some(([other, c]) => other !== collector && c === cause);
    this.log[alreadyReported ? 'debug' : 'warn']({ collector, cause, ...fields }, 'poll failed');
  }

  succeeded(collector: string): void {
    const previous = this.causes.get(collector);
    if (previous === undefined) return;
    this.causes.delete(collector);
    const stillFailing = [...this.causes.values()].includes(previous);
    this.log[stillFailing ? 'debug' : 'info']({ collector, cause: previous }, 'polls succeed again');
  }
}
