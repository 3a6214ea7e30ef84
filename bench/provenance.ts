/**
 * What every benchmark writes beside its figures, so that each figure can be traced to what was
 * measured and where: the commit (and whether the tree had uncommitted changes), the machine, the
 * exact command, the date, and the 1-minute load average at the start and at the end (the machine
 * may be shared: the load says how much).
 *
 *   const run = startRun();   // at the start of the benchmark
 *   ...                       // measure
 *   json.provenance = run.finish();
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file runs compiled, from bench/dist/bench). */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
}

export interface Provenance {
  commit: string;
  /** Uncommitted changes to tracked files when the run started (the measured build included them); results and the generated performance page do not count. */
  dirty: boolean;
  machine: Machine;
  command: string;
  startedAt: string;
  finishedAt: string;
  /** The 1-minute load average at the start and at the end. */
  load1m: { start: number; end: number };
  note: string;
}

const SHARED = 'The machine may be shared with other work: the load average at the start and end says how busy it was.';

function git(...args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

function osName(): string {
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(fs.readFileSync('/etc/os-release', 'utf8'))?.[1];
    if (pretty) return `${pretty}, ${os.type()}`;
  } catch {
    /* no os-release: the kernel's name alone */
  }
  return os.type();
}

export function machine(): Machine {
  const cpus = os.cpus();
  return { cpu: cpus[0]?.model.trim() ?? 'unknown', cores: cpus.length, memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)), os: osName(), node: process.version };
}

/** The command as typed: the BENCH_* settings given, then the npm script (or the node command) that ran. */
export function commandLine(): string {
  const settings = Object.keys(process.env)
    .filter((k) => k.startsWith('BENCH_') && process.env[k])
    .sort()
    .map((k) => `${k}=${process.env[k]}`);
  const script = process.env.npm_lifecycle_event;
  const run = script ? `npm run ${script}` : `node ${path.relative(ROOT, process.argv[1] ?? '')}`;
  return [...settings, run].join(' ');
}

const load1m = () => Number(os.loadavg()[0]!.toFixed(2));

/** Call when the benchmark starts; `finish()` when it has measured, for the record to write. */
export function startRun(): { finish(): Provenance } {
  const startedAt = new Date().toISOString();
  const start = load1m();
  const commit = git('rev-parse', '--short=12', 'HEAD') || 'unknown (not a git checkout)';
  const dirty = git('status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench/results', ':!docs/performance.md') !== '';
  const command = commandLine();
  return { finish: () => ({ commit, dirty, machine: machine(), command, startedAt, finishedAt: new Date().toISOString(), load1m: { start, end: load1m() }, note: SHARED }) };
}

/** One line for a results file's Markdown: commit, machine, command, date and load. */
export function describe(p: Provenance): string {
  const m = p.machine;
  return [
    `Commit ${p.commit}${p.dirty ? ' with uncommitted changes' : ''}; run ${p.startedAt} to ${p.finishedAt}.`,
    `Machine: ${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}; 1-minute load average ${p.load1m.start} at the start, ${p.load1m.end} at the end. ${p.note}`,
    `Command: \`${p.command}\`.`,
  ].join('\n');
}
