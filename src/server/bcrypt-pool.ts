import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * The worker's code, inline so the same module runs from the sources (tests) and from the build.
 * bcrypt is loaded from the path the main thread resolved, wherever the process was started from.
 * On Linux the worker lowers its own thread's priority (nice 19): when cores are short, the main
 * thread serving scrapes goes first, and guessing waits.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.lowPriority) {
  try {
    const thread = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
    require('node:os').setPriority(thread, 19);
  } catch {}
}
const bcrypt = require(workerData.bcrypt);
parentPort.on('message', ({ id, password, hash }) => {
  let same = false;
  try { same = bcrypt.compareSync(password, hash); } catch { same = false; }
  parentPort.postMessage({ id, same });
});
`;

interface PoolWorker {
  worker: Worker;
  /** Comparisons sent to this worker and not answered yet, by id. */
  pending: Map<number, { resolve: (same: boolean) => void; reject: (error: Error) => void }>;
}

/** One worker per spare core, at least one and at most two: the main thread keeps a core for scrapes. */
export function defaultPoolSize(): number {
  return Math.max(1, Math.min(2, availableParallelism() - 1));
}

/**
 * bcrypt comparisons on worker threads, so a password check never blocks the event loop that
 * serves scrapes. Workers start with the first comparison (none without basic auth) and do not
 * keep the process alive.
 */
export class BcryptPool {
  private readonly workers: PoolWorker[] = [];
  private nextId = 0;
  /** Comparisons done since start (tests count them). */
  comparisons = 0;

  /**
   * `lowPriority` false: the workers keep the process's priority (tests of what the checks decide,
   * on a machine their own suite keeps busy, where a nice-19 thread waits seconds for a core).
   */
  constructor(
    readonly size = defaultPoolSize(),
    private readonly lowPriority = true,
  ) {}

  /** Comparisons sent to a worker and not answered yet. */
  get inFlight(): number {
    return this.workers.reduce((n, w) => n + w.pending.size, 0);
  }

  compare(password: string, hash: string): Promise<boolean> {
    const target = this.leastBusy();
    const id = this.nextId++;
    this.comparisons++;
    return new Promise<boolean>((resolve, reject) => {
      target.pending.set(id, { resolve, reject });
      target.worker.postMessage({ id, password, hash });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((w) => w.worker.terminate()));
  }

  private leastBusy(): PoolWorker {
    if (this.workers.length < this.size) return this.spawn();
    return this.workers.reduce((best, w) => (w.pending.size < best.pending.size ? w : best));
  }

  private spawn(): PoolWorker {
    const bcrypt = createRequire(import.meta.url).resolve('bcryptjs');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcrypt, lowPriority: this.lowPriority } });
    worker.unref();
    const entry: PoolWorker = { worker, pending: new Map() };
    worker.on('message', ({ id, same }: { id: number; same: boolean }) => {
      entry.pending.get(id)?.resolve(same);
      entry.pending.delete(id);
    });
    // A worker that dies fails its comparisons (no outcome is cached); the next one starts a new worker.
    const fail = (error: Error) => {
      const index = this.workers.indexOf(entry);
      if (index >= 0) this.workers.splice(index, 1);
      for (const waiting of entry.pending.values()) waiting.reject(error);
      entry.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`bcrypt worker exited with code ${code}`)));
    this.workers.push(entry);
    return entry;
  }
}
