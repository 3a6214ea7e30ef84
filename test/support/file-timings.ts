// A setup file of every project (vitest.config.ts): where TEST_TIMINGS_DIR is set (test/runner/run-tests.ts
// sets it), the CPU a test file used is added to a file there when the file ends: its worker's own
// and that of the processes it started and waited for (an exporter, rabbitmqctl), for the table of
// docs/development.md. The wall time comes from vitest's own report.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { childrenCpuSeconds } from '../harness/children-cpu.js';

const dir = process.env.TEST_TIMINGS_DIR;

if (dir) {
  const own = process.cpuUsage();
  const children = childrenCpuSeconds();
  afterAll(() => {
    const used = process.cpuUsage(own);
    const file = expect.getState().testPath;
    const cpuSeconds = (used.user + used.system) / 1e6 + (childrenCpuSeconds() - children);
    appendFileSync(join(dir, `${process.pid}.jsonl`), `${JSON.stringify({ file, cpuSeconds })}\n`);
  });
}
