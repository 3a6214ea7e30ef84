/**
 * What the exporter's heap holds at scale (`npm run bench:heap`): the built exporter against the
 * simulated management API (BENCH_HEAP_QUEUES queues, 100,000, over 10 vhosts; a tenth of them
 * changing before each poll, statistics every poll as in bench:scale), a heap snapshot once
 * BENCH_HEAP_POLLS queue polls (3) have ended, summed by kind and the arrays by what holds them
 * (snapshot-summary.ts). The live heap, not RSS: what code changes to the per-queue state move.
 * Writes bench/results/heap.json (with commit, machine, command, date and load: ../provenance.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRun } from '../provenance.js';
import { log, logAs, sleep } from '../run/util.js';
import { queueStatus } from '../scale/landing-status.js';
import { startExporter, startSimulator, stopChildren } from '../scale/processes.js';
import type { HeapResults } from './heap-results.js';
import { summariseSnapshot } from './snapshot-summary.js';

logAs('heap');

const QUEUES = Number(process.env.BENCH_HEAP_QUEUES || 100_000);
const POLLS = Number(process.env.BENCH_HEAP_POLLS || 3);
const CHANGE = 0.1;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const RESULTS = process.env.BENCH_RESULTS_DIR || path.join(ROOT, 'bench/results');

async function snapshotAfterPolls(url: string, pid: number, dir: string): Promise<string> {
  let seen = 0;
  let last: number | undefined;
  while (seen < POLLS) {
    const { lastSuccessAt } = await queueStatus(url);
    if (lastSuccessAt !== undefined && lastSuccessAt !== last && (last === undefined || lastSuccessAt - last > 1000)) {
      seen++;
      last = lastSuccessAt;
      log(`${QUEUES} queues: poll ${seen} of ${POLLS} ended`);
    }
    await sleep(500);
  }
  process.kill(pid, 'SIGUSR2');
  // The file is complete when its size stops growing and the exporter answers again.
  let size = -1;
  for (;;) {
    await sleep(2000);
    const file = fs.readdirSync(dir).find((f) => f.endsWith('.heapsnapshot'));
    if (!file) continue;
    const now = fs.statSync(path.join(dir, file)).size;
    if (now === size && now > 0) {
      await queueStatus(url);
      return path.join(dir, file);
    }
    size = now;
  }
}

async function main(): Promise<void> {
  const run = startRun();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-heap-'));
  try {
    const sim = await startSimulator(QUEUES);
    sim.changePerPoll(CHANGE);
    const exporter = await startExporter(sim, workDir, ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${workDir}`]);
    log(`${QUEUES} queues: exporter serving, waiting for ${POLLS} queue polls`);
    const file = await snapshotAfterPolls(exporter.url, exporter.pid, workDir);
    stopChildren();
    log(`summing ${(fs.statSync(file).size / 2 ** 20).toFixed(0)} MB of heap snapshot`);
    const results: HeapResults = { bench: 'heap', provenance: run.finish(), queues: QUEUES, polls: POLLS, changingFraction: CHANGE, summary: summariseSnapshot(file) };
    fs.mkdirSync(RESULTS, { recursive: true });
    fs.writeFileSync(path.join(RESULTS, 'heap.json'), `${JSON.stringify(results, null, 2)}\n`);
    log(`live heap ${results.summary.totalMiB.toFixed(1)} MiB, of which native ${results.summary.nativeMiB.toFixed(1)} MiB`);
  } finally {
    stopChildren();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
