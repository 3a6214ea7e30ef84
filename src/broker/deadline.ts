/**
 * An abort signal that ends at the first of a timeout, an optional parent signal and abort():
 * one controller and one timer, both released by end(). It replaces AbortSignal.timeout and
 * AbortSignal.any for every poll and request. Those keep their timer until it fires, long after
 * the poll ended, and then build a DOMException (with a stack trace) nobody reads; and every signal
 * made with AbortSignal.any stays registered with a long-lived parent until the garbage collector
 * takes it. 10,000 idle targets spent more of their time there than on their polls.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private timedOut = false;
  private readonly onParentAbort = () => this.abort(this.parent?.reason);

  constructor(
    readonly timeoutMs: number,
    private readonly parent?: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.abort(new DeadlinePassed(timeoutMs));
    }, timeoutMs);
    this.timer.unref();
    if (parent?.aborted) this.abort(parent.reason);
    else parent?.addEventListener('abort', this.onParentAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The timeout fired (not the parent, not abort()). */
  get passed(): boolean {
    return this.timedOut;
  }

  /** Ends the signal now (once; later calls change nothing). */
  abort(reason: unknown = ENDED): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  /** The work it bounded is over: its timer and its listener on the parent go. The signal stays as it is. */
  end(): void {
    clearTimeout(this.timer);
    this.parent?.removeEventListener('abort', this.onParentAbort);
  }
}

/** The reason of a Deadline whose timeout fired. */
export class DeadlinePassed extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no end within ${timeoutMs} ms`);
    this.name = 'DeadlinePassed';
  }
}

/** The reason of a Deadline ended by abort() without one: made once, not per abort. */
const ENDED = new Error('ended');
