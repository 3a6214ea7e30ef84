import { Worker } from 'node:worker_threads';
import type { PollResult } from '../collect-once.js';
import type { ClientCounts, FromThread, ThreadJob, ToThread } from './protocol.js';
import { errorFromWire, familiesFromWire } from './wire.js';

/** The main thread's own grace for a thread poll past its deadline (collector-runner.ts, THREAD_ABORT_GRACE_MS). */
const STUCK_AFTER_MS = 2_000;

interface Pending {
  /** The thread it was sent to: only that thread's end fails it. */
  worker: Worker;
  resolve: (result: PollResult) => void;
  reject: (error: Error) => void;
  counted: (counts: ClientCounts) => void;
}

/**
 * The poll thread: a worker thread where the collectors set to poll there fetch, parse, render
 * and deflate, so that their garbage collections and long turns are not the HTTP server's. One per
 * process, started at its first poll; it keeps a client and the collectors' carry-over per target.
 * A poll there resolves to what a poll on the main thread would (families, skipped, dropped, left
 * out) or rejects with its error; the main thread keeps the schedule, the deadline and the state.
 */
export class PollThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /**
   * `entry`: the worker's module (src/poll-thread-worker.ts, built); `logFormat`: log.format, which
   * the thread's lines follow; `startThread`: how the thread is started (the process sizes its heap).
   */
  constructor(
    private readonly entry: URL,
    private readonly logFormat: 'json' | 'logfmt' = 'json',
    private readonly startThread: (entry: URL) => Worker = (url) => new Worker(url),
    /** How long a poll may run past its abort (its deadline) before its thread counts as stuck and is replaced. */
    private readonly stuckAfterMs = STUCK_AFTER_MS,
  ) {}

  /** `counted`: told what the poll's requests added to the target's client counters, whatever its outcome. */
  collect(job: ThreadJob, signal: AbortSignal, counted: (counts: ClientCounts) => void): Promise<PollResult> {
    const worker = this.started();
    const id = this.nextId++;
    let watchdog: NodeJS.Timeout | undefined;
    const abort = () => {
      this.send({ kind: 'abort', id });
      // A thread busy in one poll (a CPU-bound parse, a loop) answers no other target's either: past
      // the grace it is ended and the next poll starts a new one.
      watchdog = setTimeout(() => this.replaceStuck(worker, `the poll thread was stuck in a poll of ${job.collector} past its deadline and was replaced`), this.stuckAfterMs);
      watchdog.unref();
    };
    return new Promise<PollResult>((resolve, reject) => {
      const settle = () => {
        signal.removeEventListener('abort', abort);
        clearTimeout(watchdog);
        this.pending.delete(id);
      };
      this.pending.set(id, {
        worker,
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
        counted,
      });
      worker.postMessage({ kind: 'poll', id, logFormat: this.logFormat, ...job } satisfies ToThread);
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
    });
  }

  /** The target stopped: the thread lets go of what it kept for it. */
  forget(target: string): void {
    this.send({ kind: 'forget', target });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private send(message: ToThread): void {
    this.worker?.postMessage(message);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = this.startThread(this.entry);
    worker.on('message', (message: FromThread) => this.received(message));
    // A thread that fails or ends fails the polls in it; the next poll starts a new one.
    worker.on('error', (error) => this.ended(worker, `the poll thread failed: ${error.message}`));
    worker.on('exit', (code) => this.ended(worker, `the poll thread ended (exit code ${code})`));
    // The thread does not keep the process alive: the main thread's timers and server do.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private received(message: FromThread): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    pending.counted(message.counts);
    if (message.kind === 'failed') {
      pending.reject(errorFromWire(message.error));
      return;
    }
    pending.resolve({ families: familiesFromWire(message.families), skipped: message.skipped, dropped: new Map(message.dropped), leftOut: message.leftOut });
  }

  private replaceStuck(worker: Worker, why: string): void {
    if (this.worker !== worker) return;
    this.ended(worker, why);
    void worker.terminate();
  }

  private ended(worker: Worker, why: string): void {
    if (this.worker === worker) this.worker = undefined;
    // An ended thread's exit comes after its error, or after it was replaced: the polls since are another thread's.
    for (const pending of [...this.pending.values()]) if (pending.worker === worker) pending.reject(new Error(why));
  }
}
