import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { childrenCpuSeconds } from '../harness/children-cpu.js';
import { selectedVersions } from '../harness/broker/versions.js';
import { laneResult, type LaneResult, type RunRecord } from './record.js';

/**
 * The test step of `npm test`: vitest in lanes that run side by side. The projects that need nothing
 * but Node (unit, process, storefront) share one lane; each broker version has a lane of its own,
 * its files one at a time against its own private node (one vitest process runs all projects' files
 * through one pool, so the versions would wait for each other). Each lane's lines come prefixed with
 * its name as they are printed; at the end a table of the lanes and the closing line
 * `N passed, N failed, N skipped`; exit 1 when a lane failed.
 *
 * What each lane and file cost, wall and CPU, goes to TEST_TIMINGS_DIR (default test-results/):
 * `npm run docs:test-timings` makes the table of docs/development.md from it.
 *
 *   node dist/test/runner/run-tests.js [vitest arguments, given to every lane]
 *   TEST_LANES=node-only,broker-4.3   runs only those lanes
 */
interface Lane {
  name: string;
  projects: string[];
}

const NODE_ONLY = ['unit', 'process', 'storefront'];

function lanes(): Lane[] {
  const all: Lane[] = [{ name: 'node-only', projects: NODE_ONLY }, ...selectedVersions().map((v) => ({ name: `broker-${v.name}`, projects: [`broker-${v.name}`] }))];
  const wanted = process.env.TEST_LANES?.split(/[\s,]+/).filter(Boolean);
  if (!wanted) return all;
  const unknown = wanted.filter((w) => !all.some((l) => l.name === w));
  if (unknown.length > 0) throw new Error(`TEST_LANES=${process.env.TEST_LANES}: unknown lane ${unknown.join(', ')} (known: ${all.map((l) => l.name).join(', ')})`);
  return all.filter((l) => wanted.includes(l.name));
}

/**
 * `--measure FILE -- COMMAND...`: runs the command and, once it ended, writes the CPU it and its
 * children used to FILE; exits with its code. A lane runs under it, so each lane's CPU is its own.
 */
function measure(file: string, command: string[]): void {
  const [cmd, ...args] = command;
  if (!cmd) throw new Error('--measure FILE -- COMMAND: no command');
  const child = spawn(cmd, args, { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    writeFileSync(file, JSON.stringify({ cpuSeconds: childrenCpuSeconds() }));
    process.exit(code ?? (signal ? 1 : 0));
  });
}

function prefixed(name: string, stream: NodeJS.ReadableStream, out: NodeJS.WriteStream): void {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) out.write(`[${name}] ${line}\n`);
  });
  stream.on('end', () => {
    if (rest) out.write(`[${name}] ${rest}\n`);
  });
}

async function runLane(lane: Lane, dir: string, extra: string[]): Promise<LaneResult> {
  const vitest = join(createRequire(import.meta.url).resolve('vitest/package.json'), '../vitest.mjs');
  const laneDir = join(dir, lane.name);
  rmSync(laneDir, { recursive: true, force: true });
  mkdirSync(join(laneDir, 'files'), { recursive: true });
  const report = join(laneDir, 'vitest.json');
  const cpuFile = join(laneDir, 'cpu.json');
  const args = [
    process.argv[1]!,
    '--measure',
    cpuFile,
    '--',
    process.execPath,
    vitest,
    'run',
    ...lane.projects.flatMap((p) => ['--project', p]),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...extra,
  ];
  const started = Date.now();
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TEST_TIMINGS_DIR: join(laneDir, 'files'), ...(process.env.FORCE_COLOR ? {} : { NO_COLOR: '1' }) },
  });
  prefixed(lane.name, child.stdout!, process.stdout);
  prefixed(lane.name, child.stderr!, process.stderr);
  const code = await new Promise<number>((done) => child.on('close', (c) => done(c ?? 1)));
  return laneResult(lane.name, lane.projects, laneDir, { code, wallSeconds: (Date.now() - started) / 1000 });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--measure') {
    measure(argv[1]!, argv.slice(argv.indexOf('--') + 1));
    return;
  }
  const dir = resolve(process.env.TEST_TIMINGS_DIR ?? 'test-results');
  const started = Date.now();
  const results = await Promise.all(lanes().map((lane) => runLane(lane, dir, argv)));
  const record: RunRecord = {
    node: process.version,
    wallSeconds: (Date.now() - started) / 1000,
    lanes: results,
  };
  writeFileSync(join(dir, 'run.json'), `${JSON.stringify(record, null, 1)}\n`);

  const rows = results.map((r) => `${r.name.padEnd(12)} ${String(r.files).padStart(5)} files ${String(r.passed).padStart(6)} passed ${String(r.failed).padStart(4)} failed ${String(r.skipped).padStart(4)} skipped ${r.wallSeconds.toFixed(0).padStart(6)} s wall ${r.cpuSeconds.toFixed(0).padStart(6)} s CPU${r.code === 0 ? '' : `  exit ${r.code}`}`);
  const sum = (key: 'passed' | 'failed' | 'skipped') => results.reduce((n, r) => n + r[key], 0);
  process.stdout.write(`\nlanes on Node ${process.version}, side by side, ${record.wallSeconds.toFixed(0)} s in all:\n${rows.join('\n')}\n`);
  const failedLanes = results.filter((r) => r.code !== 0 || r.failed > 0);
  if (failedLanes.length > 0) process.stdout.write(`failed: ${failedLanes.map((r) => r.name).join(', ')} (their lines above are prefixed with their names)\n`);
  // Repeated at the end of .ci/run, whose last lines are often all of a run that is kept.
  const failures = results.flatMap((r) => r.failures.map((f) => `[${r.name}] ${f.file} > ${f.test}\n${f.message.replace(/^/gm, '    ')}\n`));
  writeFileSync(join(dir, 'failures.txt'), failures.join(''));
  if (failures.length > 0) process.stdout.write(`failed tests:\n${failures.join('')}`);
  process.stdout.write(`${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped\n`);
  process.exitCode = failedLanes.length > 0 ? 1 : 0;
}

await main();
