import { machine } from './machine.js';
import type { CiTimings, FileTiming, RunRecord } from './record.js';

/**
 * The timings of a `.ci/run` from before test/runner/run-tests.ts (one vitest process a Node), read
 * from what it printed: each file's line of vitest's reporter (` ✓  unit  test/unit/x.test.ts
 * (12 tests) 345ms`), the `tests on Node V: N s` line of each Node, and the run's closing
 * `EXIT 0 after N s` (the wrapper that ran it) or `ci: N s from start to OK`.
 */
const FILE_LINE = /^\s*[✓✗×❯↓]\s+(\S+)\s+(\S+\.test\.ts)\s+\((\d+) tests?(?: \| (\d+) skipped)?\)\s+([\d.]+)(ms|s)\s*$/;
const PASS_LINE = /^tests (?:again )?on Node v?([\d.]+)[^:]*: (\d+) s$/;
const TOTAL_LINE = /^(?:EXIT 0 after (\d+) s|ci: (\d+) s from start to OK)$/;

export function timingsFromLog(log: string, commit: string): CiTimings {
  const runs: RunRecord[] = [];
  let files: FileTiming[] = [];
  let skipped = 0;
  const sections: CiTimings['sections'] = [];
  for (const raw of log.split('\n')) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the reporter's colours are ESC sequences.
    const line = raw.replace(/\x1b\[[0-9;]*m/g, '');
    const file = FILE_LINE.exec(line);
    if (file) {
      const [, project, path, tests, skippedHere, amount, unit] = file;
      skipped += Number(skippedHere ?? 0);
      files.push({ project: project!, file: path!, tests: Number(tests), failed: 0, wallSeconds: Number(amount) / (unit === 'ms' ? 1000 : 1), cpuSeconds: null });
      continue;
    }
    const pass = PASS_LINE.exec(line);
    if (pass) {
      const seconds = Number(pass[2]);
      runs.push({ node: `v${pass[1]}`, wallSeconds: seconds, lanes: [{ name: 'one vitest', projects: [...new Set(files.map((f) => f.project))], code: 0, wallSeconds: seconds, cpuSeconds: 0, files: files.length, passed: files.reduce((n, f) => n + f.tests, 0) - skipped, failed: 0, skipped, timings: files, failures: [] }] });
      sections.push({ name: `tests on Node v${pass[1]}`, seconds });
      files = [];
      skipped = 0;
      continue;
    }
    const total = TOTAL_LINE.exec(line);
    if (total) sections.push({ name: 'total', seconds: Number(total[1] ?? total[2]) });
  }
  if (runs.length === 0) throw new Error('no "tests on Node V: N s" line in the log: not the output of a .ci/run');
  return { commit, machine: machine(), command: 'CI=true bash .ci/run </dev/null (a fresh clone)', sections, runs };
}
