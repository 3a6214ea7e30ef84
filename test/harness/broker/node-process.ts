// Ports, pids, processes and log files of a private node: the plumbing of broker.ts.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const HOST = '127.0.0.1';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves true if `p` settles within `ms`, false otherwise; never leaves a timer behind. */
export async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([p.then(() => true as const, () => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** process.env without RABBITMQ_* / ERL_* (so nothing leaks from a system broker setup) plus `extra`. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('RABBITMQ_') || k.startsWith('ERL_')) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: HOST, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

export function isListening(port: number, host = HOST, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    const done = (v: boolean) => {
      sock.destroy();
      resolve(v);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

// Ports that default RabbitMQ / epmd / rabbitmqctl use: never pick them.
const RESERVED = new Set([4369, 5672, 5671, 15672, 15692, 25672, 61613, 1883, 5552]);
for (let p = 35672; p <= 35682; p++) RESERVED.add(p);

export async function pickPorts(n: number): Promise<number[]> {
  const chosen = new Set<number>();
  for (let attempts = 0; chosen.size < n; attempts++) {
    if (attempts > 2000) throw new Error('could not find free ports in 20000..31999');
    const p = 20000 + Math.floor(Math.random() * 12000);
    if (RESERVED.has(p) || chosen.has(p)) continue;
    if (await canBind(p)) chosen.add(p);
  }
  return [...chosen];
}

export function tailFile(file: string, lines: number): string {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export function logTailOf(info: { dir: string; logDir: string }, lines = 40): string {
  const parts: string[] = [];
  const files = [path.join(info.dir, 'server.out')];
  try {
    for (const f of fs.readdirSync(info.logDir)) {
      if (f.endsWith('.log')) files.push(path.join(info.logDir, f));
    }
  } catch {
    /* no log dir yet */
  }
  for (const f of files) {
    const t = tailFile(f, lines).trim();
    if (t) parts.push(`--- ${f} (last ${lines} lines) ---\n${t}`);
  }
  return parts.join('\n') || '(no log output)';
}

export function pidAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie still answers kill(0); treat it as dead.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z';
  } catch {
    return true;
  }
}

export function readPid(file: string): number | undefined {
  try {
    const n = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
    return Number.isFinite(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

export function tryKill(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(pid, signal);
  } catch {
    /* already gone */
  }
}

export async function waitFor(pred: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await pred()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(stepMs);
  }
}
