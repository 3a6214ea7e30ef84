// The test-time table of docs/development.md (issue 58): made from .ci/timings/ by
// `npm run docs:test-timings`, from what test/runner/run-tests.ts and .ci/run leave in test-results/.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BEGIN, END, testTimingsSection, withSection } from '../../runner/doc-section.js';
import { timingsFromLog } from '../../runner/from-log.js';
import { laneResult, type CiTimings } from '../../runner/record.js';
import { REPO_ROOT } from '../../support/fixtures.js';

const read = (name: string) => JSON.parse(readFileSync(join(REPO_ROOT, '.ci/timings', name), 'utf8')) as CiTimings;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('docs/development.md, "Test time"', () => {
  it('is what .ci/timings/before.json and after.json make of it', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/development.md'), 'utf8');
    const section = testTimingsSection(read('before.json'), read('after.json'));
    expect(doc, 'docs/development.md is out of date with .ci/timings/: run `npm run docs:test-timings`').toContain(section);
  });

  it('changes when a file takes longer', () => {
    const before = read('before.json');
    const after = read('after.json');
    const slower = structuredClone(after);
    slower.runs[0]!.lanes[0]!.timings[0]!.wallSeconds += 100;
    expect(testTimingsSection(before, slower)).not.toBe(testTimingsSection(before, after));
  });

  it('replaces only what lies between its markers, and says so when they are missing', () => {
    expect(withSection(`a\n${BEGIN}\nold\n${END}\nb\n`, 'new')).toBe('a\nnew\nb\n');
    expect(() => withSection('no markers', 'new')).toThrow(/has no/);
  });
});

describe('the timings of a .ci/run from before the lanes, read from its output', () => {
  const log = [
    '===== tests on Node v20.20.2 (REQUIRE_BROKER=1 npm test: unit + broker projects) =====',
    ' \u001b[32m✓\u001b[39m \u001b[30m\u001b[42m unit \u001b[49m\u001b[39m test/unit/log.test.ts \u001b[2m(\u001b[22m\u001b[2m2 tests\u001b[22m\u001b[2m)\u001b[22m\u001b[32m 18\u001b[2mms\u001b[22m\u001b[39m',
    ' ✓  broker-3.10  test/broker/recovery.test.ts (2 tests | 1 skipped) 49500ms',
    '     ✓ a test inside a file, not a file 12ms',
    'tests on Node v20.20.2: 2100 s',
    ' ✓  unit  test/unit/log.test.ts (2 tests) 20ms',
    'tests on Node 26.10.0: 800 s',
    'EXIT 0 after 3100 s',
  ].join('\n');

  it('takes each file line, each Node and the total', () => {
    const timings = timingsFromLog(log, 'abc');
    expect(timings.sections).toEqual([
      { name: 'tests on Node v20.20.2', seconds: 2100 },
      { name: 'tests on Node v26.10.0', seconds: 800 },
      { name: 'total', seconds: 3100 },
    ]);
    expect(timings.runs.map((r) => r.node)).toEqual(['v20.20.2', 'v26.10.0']);
    expect(timings.runs[0]!.lanes[0]).toMatchObject({ files: 2, passed: 3, skipped: 1 });
    expect(timings.runs[0]!.lanes[0]!.timings).toEqual([
      { project: 'unit', file: 'test/unit/log.test.ts', tests: 2, failed: 0, wallSeconds: 0.018, cpuSeconds: null },
      { project: 'broker-3.10', file: 'test/broker/recovery.test.ts', tests: 2, failed: 0, wallSeconds: 49.5, cpuSeconds: null },
    ]);
  });

  it('refuses a log that is no .ci/run output', () => {
    expect(() => timingsFromLog('hello\n', 'abc')).toThrow(/not the output of a \.ci\/run/);
  });
});

describe("a lane's result (test/runner/record.ts)", () => {
  function laneDir(report: object | undefined, cpuLines: string[]): string {
    const dir = mkdtempSync(join(tmpdir(), 'rmqexp-lane-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'files'));
    if (report) writeFileSync(join(dir, 'vitest.json'), JSON.stringify(report));
    writeFileSync(join(dir, 'cpu.json'), JSON.stringify({ cpuSeconds: 12.5 }));
    writeFileSync(join(dir, 'files', '1.jsonl'), cpuLines.join('\n'));
    return dir;
  }
  const file = join(process.cwd(), 'test/unit/log.test.ts');
  const report = {
    numPassedTests: 1,
    numFailedTests: 1,
    numPendingTests: 2,
    numTodoTests: 0,
    testResults: [{ name: file, startTime: 1000, endTime: 3500, assertionResults: [{ status: 'passed' }, { status: 'failed' }, { status: 'skipped' }, { status: 'skipped' }] }],
  };

  it("joins vitest's report with each file's CPU", () => {
    const result = laneResult('node-only', ['unit', 'process', 'storefront'], laneDir(report, [JSON.stringify({ file, wallSeconds: 3.25, cpuSeconds: 1.5 })]), { code: 1, wallSeconds: 4 });
    expect(result).toMatchObject({ files: 1, passed: 1, failed: 1, skipped: 2, cpuSeconds: 12.5, wallSeconds: 4 });
    expect(result.timings).toEqual([{ project: 'unit', file: 'test/unit/log.test.ts', tests: 4, failed: 1, wallSeconds: 3.25, cpuSeconds: 1.5 }]);
    // A file of a project without the timing setup file: the report's wall time, no CPU.
    const bare = laneResult('node-only', ['unit'], laneDir(report, []), { code: 1, wallSeconds: 4 });
    expect(bare.timings[0]).toMatchObject({ wallSeconds: 2.5, cpuSeconds: null });
  });

  it('names each failed test with the start of its error, and a file that failed outside its tests', () => {
    const long = ['Error: timed out after 20000 ms waiting for the poll', ...Array.from({ length: 20 }, (_, i) => `    at frame ${i}`)].join('\n');
    const failing = {
      ...report,
      testResults: [
        { ...report.testResults[0]!, assertionResults: [{ status: 'passed', fullName: 'a passing one' }, { status: 'failed', fullName: 'polls > ends at its deadline', failureMessages: [long] }] },
        { name: join(process.cwd(), 'test/unit/broken.test.ts'), startTime: 0, endTime: 0, status: 'failed', message: 'SyntaxError: Unexpected token', assertionResults: [] },
      ],
    };
    const { failures } = laneResult('node-only', ['unit'], laneDir(failing, []), { code: 1, wallSeconds: 4 });
    expect(failures).toEqual([
      { file: 'test/unit/log.test.ts', test: 'polls > ends at its deadline', message: long.split('\n').slice(0, 6).join('\n') },
      { file: 'test/unit/broken.test.ts', test: '(the file itself)', message: 'SyntaxError: Unexpected token' },
    ]);
    expect(laneResult('node-only', ['unit'], laneDir(report, []), { code: 0, wallSeconds: 4 }).failures).toEqual([{ file: 'test/unit/log.test.ts', test: '(unnamed test)', message: '' }]);
  });

  it('counts a lane that failed with no failed test, or left no report, as one failure', () => {
    expect(laneResult('broker-4.3', ['broker-4.3'], laneDir(undefined, []), { code: 1, wallSeconds: 4 }).failed).toBe(1);
    expect(laneResult('broker-4.3', ['broker-4.3'], laneDir({ ...report, numFailedTests: 0 }, []), { code: 1, wallSeconds: 4 }).failed).toBe(1);
    expect(laneResult('broker-4.3', ['broker-4.3'], laneDir({ ...report, numFailedTests: 0 }, []), { code: 0, wallSeconds: 4 }).failed).toBe(0);
  });
});
