// WAL checkpoints off the event loop. SQLite copies the write-ahead log back into the database
// file at checkpoints; run by the connection that writes (autocheckpoint), a checkpoint at a
// million records rewrites hundreds of scattered pages and fsyncs them while every request
// waits. A worker thread with its own connection runs PASSIVE checkpoints instead (they never
// block writers), and the main connection's autocheckpoint stays only as a distant safety net.

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface CheckpointResult {
  /** Frames in the WAL, and how many of them are now in the database file. */
  log: number;
  checkpointed: number;
}

export interface Checkpointer {
  /** Called after each checkpoint that found frames (for tests and diagnostics). */
  onCheckpoint?: (r: CheckpointResult) => void;
  stop(): Promise<void>;
}

// A CommonJS script (worker eval mode), so it runs the same from the compiled package and from
// the TypeScript sources under the test runner.
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.libsql);
const db = new Database(workerData.path);
db.exec('PRAGMA busy_timeout = 1000');
const timer = setInterval(() => {
  try {
    const r = db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get();
    if (r.log > 0) parentPort.postMessage({ log: Number(r.log), checkpointed: Number(r.checkpointed) });
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message) });
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export function startCheckpointer(path: string, intervalMs: number, onError: (message: string) => void): Checkpointer {
  const libsql = createRequire(import.meta.url).resolve('libsql');
  const worker = new Worker(WORKER, { eval: true, workerData: { path, intervalMs, libsql } });
  worker.unref();
  const checkpointer: Checkpointer = {
    async stop() {
      worker.ref(); // keep the process alive until the worker has closed its connection
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      await exited;
    },
  };
  worker.on('message', (m: CheckpointResult | { error: string }) => {
    if ('error' in m) onError(`WAL checkpoint failed (the next one retries): ${m.error}`);
    else checkpointer.onCheckpoint?.(m);
  });
  worker.on('error', (err) => onError(`WAL checkpointer stopped: ${err.message}`));
  return checkpointer;
}
