// The poll thread's young generation is sized by the exporter (src/heap-size.ts,
// startWithSemiSpaces), not by the process' flag, unless the operator sized it themselves; the
// flag is set back once the thread runs, so the threads started later keep the process' size.
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { NODE_FLAGS, semiSpaceFlag, startWithSemiSpaces } from '../../src/heap-size.js';

const MiB = 1024 * 1024;

/** A thread that keeps much of what it allocates alive for a while (so V8 grows its young generation to its largest) and reports the largest size it reached. */
const GROWER = `
const v8 = require('node:v8');
const { parentPort } = require('node:worker_threads');
let largest = 0;
let kept = [];
for (let i = 0; i < 600000; i++) {
  kept.push({ i, text: 'x' + i });
  if (kept.length > 60000) kept = [];
  if (i % 1000 === 0) largest = Math.max(largest, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
}
parentPort.postMessage(largest);
`;

function youngGenerationOf(start: () => Worker): Promise<number> {
  const worker = start();
  return new Promise<number>((resolve, reject) => {
    worker.once('message', (largest: number) => resolve(largest));
    worker.once('error', reject);
  }).finally(() => worker.terminate());
}

const grower = () => new Worker(GROWER, { eval: true });
/** The process started with this flag (V8 reads it for each heap it makes). */
const startedWith = (flag: string) => v8.setFlagsFromString(flag);

// Back to V8's own size for the rest of the file's process.
afterEach(() => v8.setFlagsFromString('--max-semi-space-size=0'));

describe("the poll thread's young generation", () => {
  // Semi-spaces of 1 MiB: a young generation of 2 MiB (3.75 MiB on Node 26); of 4 MiB: 8 MiB.
  it("takes the size it is started with, and threads started after it the process' own", async () => {
    expect(semiSpaceFlag(NODE_FLAGS)).toBe(4);
    startedWith('--max-semi-space-size=4');
    expect(await youngGenerationOf(() => startWithSemiSpaces(1, grower, [...NODE_FLAGS]))).toBeLessThan(6 * MiB);
    expect(await youngGenerationOf(grower)).toBeGreaterThan(6 * MiB);
  });

  it("is the operator's when their flags size it otherwise than the exporter's own", async () => {
    startedWith('--max-semi-space-size=1');
    expect(await youngGenerationOf(() => startWithSemiSpaces(4, grower, ['--max-semi-space-size=1']))).toBeLessThan(6 * MiB);
  });
});

describe('the semi-space flag', () => {
  it('is read in either spelling, the last one named winning', () => {
    expect(semiSpaceFlag([])).toBeUndefined();
    expect(semiSpaceFlag(['--max-old-space-size=512'])).toBeUndefined();
    expect(semiSpaceFlag(['--max_semi_space_size=8'])).toBe(8);
    expect(semiSpaceFlag(['--max-semi-space-size=4', '--enable-source-maps', '--max-semi-space-size=32'])).toBe(32);
  });
});
