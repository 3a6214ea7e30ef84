// What the tables say about the run: the machine, the command, the markdown table itself.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import type { BrokerHandle } from '../../test/harness/broker/broker.js';
import { ROOT } from './settings.js';
import type { Overview } from './state.js';

/** The exporter's commit, taken when the run starts (right after `npm run build`). */
export function exporterCommit(): string {
  try {
    let commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--', 'src'], { cwd: ROOT }).toString().trim();
    if (dirty) commit += ` plus uncommitted changes to ${dirty.split('\n').length} file(s) under src/`;
    return commit;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

export function machine(broker: BrokerHandle, overview: Overview, commit: string) {
  let cpuModel = 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpuModel;
  } catch {
    /* not Linux */
  }
  return {
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    cpuModel,
    node: process.version,
    rabbitmq: overview.rabbitmq_version ?? broker.version ?? 'unknown',
    erlang: overview.erlang_version ?? 'unknown',
    loadavg: os.loadavg().map((x) => x.toFixed(2)).join(' '),
    commit,
  };
}

export function commandLine(): string {
  const vars = Object.entries(process.env)
    .filter(([k]) => k.startsWith('BENCH_'))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`);
  return [...vars, 'npm run bench'].join(' ');
}

export function table(header: string[], rows: (string | number)[][]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const r of rows) lines.push(`| ${r.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`);
  return lines.join('\n');
}

/** A short description of the recorded queue requests: the query parameters of the first list request. */
export function describeQuery(paths: string[]): string {
  const lists = paths.filter((p) => p.startsWith('/api/queues'));
  if (lists.length === 0) return '';
  const url = new URL(lists[0]!, 'http://x');
  const keys = [...url.searchParams.keys()].map((k) => (k === 'columns' ? `columns(${url.searchParams.get(k)!.split(',').length})` : `${k}=${url.searchParams.get(k)}`));
  const perVhost = lists.some((p) => /^\/api\/queues\/[^/?]+/.test(p) && !p.startsWith('/api/queues/detailed'));
  const consumers = paths.some((p) => p.startsWith('/api/consumers')) ? ' + /api/consumers' : '';
  return `${perVhost ? '/api/queues/{vhost}' : '/api/queues'}${keys.length ? ` ${keys.join(' ')}` : ''}${consumers}`;
}

