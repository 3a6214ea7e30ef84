import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One test file's run in a lane: its project, path from the repository root, tests, wall and CPU seconds. */
export interface FileTiming {
  project: string;
  file: string;
  tests: number;
  failed: number;
  wallSeconds: number;
  /** Its worker's CPU and that of the processes it waited for; null where the project has no timing setup file (the storefront's). */
  cpuSeconds: number | null;
}

export interface LaneResult {
  name: string;
  projects: string[];
  code: number;
  wallSeconds: number;
  /** The lane's vitest and every process under it that it waited for (brokers included). */
  cpuSeconds: number;
  files: number;
  passed: number;
  failed: number;
  skipped: number;
  timings: FileTiming[];
  /** Each failed test (or file that failed outside its tests), with the start of its error. */
  failures: TestFailure[];
}

export interface TestFailure {
  file: string;
  test: string;
  message: string;
}

export interface RunRecord {
  node: string;
  wallSeconds: number;
  lanes: LaneResult[];
}

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: {
    name: string;
    startTime: number;
    endTime: number;
    status?: string;
    message?: string;
    assertionResults: { status: string; fullName?: string; failureMessages?: string[] }[];
  }[];
}

/** The first lines of an error, enough to tell which wait or assertion it was (the lane's own lines have the rest). */
const MESSAGE_LINES = 6;
const MESSAGE_CHARS = 800;
function errorStart(message: string): string {
  // The test runner's own frames say nothing of the failure.
  const lines = message
    .split('\n')
    .filter((l) => l.trim() !== '' && !/node_modules\/|\(<anonymous>\)/.test(l))
    .slice(0, MESSAGE_LINES)
    .join('\n');
  return lines.length > MESSAGE_CHARS ? `${lines.slice(0, MESSAGE_CHARS)}…` : lines;
}

function failuresOf(report: VitestReport, root: string): TestFailure[] {
  return report.testResults.flatMap((r) => {
    const file = relative(root, r.name);
    const tests = r.assertionResults
      .filter((a) => a.status === 'failed')
      .map((a) => ({ file, test: a.fullName ?? '(unnamed test)', message: errorStart((a.failureMessages ?? []).join('\n')) }));
    // A file can fail with no test failed: an import error, a hook that threw.
    if (tests.length === 0 && r.status === 'failed') return [{ file, test: '(the file itself)', message: errorStart(r.message ?? '') }];
    return tests;
  });
}

/** The project of a file, as vitest.config.ts assigns them: the lane's own when it has one. */
function projectOf(file: string, projects: string[]): string {
  if (projects.length === 1) return projects[0]!;
  const top = file.split('/')[0] === 'storefront' ? 'storefront' : file.split('/')[1];
  return projects.find((p) => p === top) ?? projects.join('+');
}

/** What a lane's files left in `laneDir` (test/runner/run-tests.ts): vitest's JSON report and the CPU per file. */
export function laneResult(name: string, projects: string[], laneDir: string, run: { code: number; wallSeconds: number }): LaneResult {
  const root = process.cwd();
  const reportFile = join(laneDir, 'vitest.json');
  const report: VitestReport | undefined = existsSync(reportFile) ? JSON.parse(readFileSync(reportFile, 'utf8')) : undefined;
  const cpuFile = join(laneDir, 'cpu.json');
  const cpuSeconds = existsSync(cpuFile) ? (JSON.parse(readFileSync(cpuFile, 'utf8')) as { cpuSeconds: number }).cpuSeconds : 0;
  const measured = new Map<string, { wallSeconds: number; cpuSeconds: number }>();
  const filesDir = join(laneDir, 'files');
  for (const entry of existsSync(filesDir) ? readdirSync(filesDir) : []) {
    for (const line of readFileSync(join(filesDir, entry), 'utf8').split('\n').filter(Boolean)) {
      const { file, wallSeconds, cpuSeconds: used } = JSON.parse(line) as { file?: string; wallSeconds: number; cpuSeconds: number };
      if (file) measured.set(file, { wallSeconds, cpuSeconds: used });
    }
  }
  const timings = (report?.testResults ?? []).map((r) => {
    const file = relative(root, r.name);
    return {
      project: projectOf(file, projects),
      file,
      tests: r.assertionResults.length,
      failed: r.assertionResults.filter((a) => a.status === 'failed').length,
      // The setup file's wall time where it ran (hooks included); else the report's, of the tests alone.
      wallSeconds: measured.get(r.name)?.wallSeconds ?? Math.max(0, r.endTime - r.startTime) / 1000,
      cpuSeconds: measured.get(r.name)?.cpuSeconds ?? null,
    };
  });
  return {
    name,
    projects,
    code: run.code,
    wallSeconds: run.wallSeconds,
    cpuSeconds,
    files: timings.length,
    passed: report?.numPassedTests ?? 0,
    // A lane that failed with no failed test (no report, an error outside the tests) counts as one failure.
    failed: report?.numFailedTests || (run.code === 0 ? 0 : 1),
    skipped: report ? report.numPendingTests + report.numTodoTests : 0,
    timings,
    failures: report ? failuresOf(report, root) : [],
  };
}

/** What a whole `.ci/run` took (test/runner/collect.ts): its sections, and each Node's run. */
export interface CiTimings {
  commit: string;
  machine: string;
  command: string;
  /** In the order .ci/run ran them; the last is `total`, from start to OK. */
  sections: { name: string; seconds: number }[];
  runs: RunRecord[];
}
