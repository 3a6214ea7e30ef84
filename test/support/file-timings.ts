// A setup file of the exporter's projects (vitest.config.ts): where TEST_TIMINGS_DIR is set
// (test/runner/run-tests.ts sets it), what a test file took is added to a file there when the file
// ends, for the table of docs/development.md: its wall time from its import to its last hook (vitest's
// JSON report counts its tests alone), and its CPU, its worker's own and that of the processes it
// started and waited for (an exporter, rabbitmqctl).
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { childrenCpuSeconds } from '../harness/children-cpu.js';

const dir = process.env.TEST_TIMINGS_DIR;

if (dir) {
  const started = performance.now();
  const own = process.cpuUsage();
  const children = childrenCpuSeconds();
  afterAll(() => {
    const used = process.cpuUsage(own);
    const file = expect.getState().testPath;
    const cpuSeconds = (used.user + used.system) / 1e6 + (childrenCpuSeconds() - children);
    const wallSeconds = (performance.now() - started) / 1000;
    appendFileSync(join(dir, `${process.pid}.jsonl`), `${JSON.stringify({ file, wallSeconds, cpuSeconds })}\n`);
  });
}
