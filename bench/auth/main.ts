/**
 * Auth benchmark (`npm run bench:auth`): the built exporter (dist/src/main.js) with a web config
 * holding one basic-auth user (a cost-10 bcrypt hash, as `htpasswd -nBC 10` makes), its broker a
 * closed port (the snapshot is small: what is measured is the HTTP side). A scraper with the
 * valid credential sends sequential scrapes of /metrics, 50 ms apart, over one keep-alive
 * connection, and times each to its last byte; so does a liveness probe on /-/healthy. Phases:
 *  - quiet: nobody else;
 *  - attack from one address: 8, then 50 connections (BENCH_AUTH_CONNECTIONS) from 127.0.0.1
 *    sending a new wrong password on every request, back to back (attackers.ts, a process at nice 19);
 *  - attack from many addresses: the most connections, each from its own 127.0.0.x, so per-client
 *    throttling does not stop them and the bound on checks in flight does.
 * Through every phase, quiet included, BENCH_AUTH_BUSY_CORES (1) processes at normal priority spin,
 * each keeping a core busy: the machine is not the exporter's alone (issue 57 measured 15x there).
 * Writes bench/results/auth.json (commit, machine, command, date, load: ../provenance.ts) and auth.md.
 */
import { fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { spawnBuiltExporter, untilServing } from '../../test/harness/built-exporter.js';
import { listeningPorts } from '../../test/harness/listening.js';
import { freePort } from '../../test/harness/ports.js';
import { startRun } from '../provenance.js';
import { type AuthPhase, type AuthResults, authSection } from '../report/auth-section.js';
import { ROOT, S } from '../run/settings.js';
import { cpuSeconds, log, logAs, logTo, sleep } from '../run/util.js';

logAs('auth');

const CONNECTIONS = (process.env.BENCH_AUTH_CONNECTIONS ?? '8,50').split(',').map(Number);
const MOST = Math.max(...CONNECTIONS);
const BUSY_CORES = Number(process.env.BENCH_AUTH_BUSY_CORES ?? 1);
/** Timed scrapes per phase and round; the phases take turns, round after round, so each sees the machine's load alike. */
const SCRAPES = Number(process.env.BENCH_AUTH_SCRAPES ?? 100);
const ROUNDS = Number(process.env.BENCH_AUTH_ROUNDS ?? 4);
const SCRAPE_GAP_MS = 50;
const USER = 'prometheus';
const PASSWORD = 'the-right-password';

type Phase = AuthPhase;

async function main(): Promise<void> {
  const run = startRun();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-auth-'));
  const webConfig = path.join(work, 'web.yml');
  fs.writeFileSync(webConfig, `basic_auth_users:\n  ${USER}: ${bcrypt.hashSync(PASSWORD, 10)}\n`);
  const config = path.join(work, 'config.yaml');
  fs.writeFileSync(config, `target:\n  url: http://127.0.0.1:${await freePort()}\n`);
  const exporter = spawnBuiltExporter(['--config', config, '--web.config.file', webConfig, '--web.listen-address', '127.0.0.1:0'], {
    root: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { PATH: process.env.PATH ?? '' },
  });
  const { child } = exporter;
  process.on('exit', () => child.kill('SIGTERM'));
  logTo(child, path.join(work, 'exporter.log'));
  const [port] = await listeningPorts(child, { name: 'exporter', timeoutMs: 20_000 });
  const url = `http://127.0.0.1:${port}`;
  const authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
  const scraper = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const prober = new http.Agent({ keepAlive: true, maxSockets: 1 });

  const timed = (agent: http.Agent, pathname: string, headers: http.OutgoingHttpHeaders = {}) =>
    new Promise<{ ms: number; status: number; body: string }>((resolve, reject) => {
      const start = performance.now();
      const req = http.get(`${url}${pathname}`, { agent, headers, timeout: 30_000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.once('end', () => resolve({ ms: performance.now() - start, status: res.statusCode ?? 0, body }));
      });
      req.once('timeout', () => req.destroy(new Error('timed out after 30 s')));
      req.once('error', reject);
    });

  await untilServing(exporter, async () => (await timed(prober, '/-/healthy')).status === 200, () => `see ${path.join(work, 'exporter.log')}`);
  // The valid credential is verified once before anything is measured, as by a running Prometheus.
  if ((await timed(scraper, '/metrics', { authorization })).status !== 200) throw new Error('the valid credential was refused');

  async function measure(phase: Phase, attack?: { connections: number; addresses: 'one' | 'many' }): Promise<void> {
    log(`phase: ${phase.name}`);
    const worker = attack
      ? fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'attackers.js'), [JSON.stringify({ url, ...attack, user: USER })])
      : undefined;
    if (worker?.pid) os.setPriority(worker.pid, 19);
    const attackStart = performance.now();
    // Attackers reach their pace (and exhaust their throttling burst) before scrapes are timed.
    if (worker) await sleep(3000);
    const cpuBefore = cpuSeconds(child.pid!);
    for (let i = 0; i < SCRAPES; i++) {
      try {
        const [scrape, healthy] = await Promise.all([timed(scraper, '/metrics', { authorization }), timed(prober, '/-/healthy')]);
        if (scrape.status === 200) phase.scrapeMs.push(scrape.ms);
        else phase.failedScrapes++;
        phase.healthyMs.push(healthy.ms);
      } catch {
        phase.failedScrapes++;
      }
      await sleep(SCRAPE_GAP_MS);
    }
    phase.exporterCpuSeconds += cpuSeconds(child.pid!) - cpuBefore;
    if (worker) {
      const answers = await new Promise<Record<string, number>>((resolve) => {
        worker.once('message', (answers) => resolve(answers as Record<string, number>));
        worker.send('stop');
      });
      phase.attackers ??= {};
      for (const [status, n] of Object.entries(answers)) phase.attackers[status] = (phase.attackers[status] ?? 0) + n;
      phase.attackSeconds = (phase.attackSeconds ?? 0) + (performance.now() - attackStart) / 1000;
      await new Promise((resolve) => (worker.exitCode === null ? worker.once('exit', resolve) : resolve(undefined)));
    }
  }

  const phase = (name: string): Phase => ({ name, scrapeMs: [], healthyMs: [], failedScrapes: 0, exporterCpuSeconds: 0 });
  const attacks = [...CONNECTIONS.map((connections) => ({ connections, addresses: 'one' as const })), { connections: MOST, addresses: 'many' as const }];
  const phases = [phase('quiet'), ...attacks.map((a) => phase(`${a.connections} wrong-password connections, ${a.addresses === 'one' ? 'one address' : `${a.connections} addresses`}`))];
  const spinners = Array.from({ length: BUSY_CORES }, () => spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }));
  process.on('exit', () => {
    for (const s of spinners) s.kill('SIGKILL');
  });
  for (let round = 0; round < ROUNDS; round++) {
    await measure(phases[0]!);
    for (const [i, attack] of attacks.entries()) await measure(phases[i + 1]!, attack);
  }
  for (const s of spinners) s.kill('SIGKILL');
  child.kill('SIGTERM');
  write({ provenance: run.finish(), busyCores: BUSY_CORES, phases });
}

function write(results: AuthResults): void {
  const lines = [
    '# Auth benchmark: authenticated scrapes under wrong-password floods',
    '',
    `How: the built exporter with a web config of one basic-auth user (cost-10 bcrypt hash), its broker a closed port, ${BUSY_CORES} other process(es) spinning at normal priority throughout (each keeps a core busy). ${ROUNDS} rounds of the phases in turn, each phase ${SCRAPES} sequential scrapes of /metrics with the valid credential (verified once before the phases; the scraper's address is 127.0.0.1 too), ${SCRAPE_GAP_MS} ms apart over one keep-alive connection, each with a /-/healthy request beside it, timed to the last byte. ` +
      `Attackers: a process of their own at nice 19 (they stand for clients elsewhere), ${CONNECTIONS.join(' or ')} keep-alive connections each sending a new wrong password on every request, back to back, from 127.0.0.1 or each from its own 127.0.0.x; they start 3 s before the timed scrapes and stop after them (their answers are counted over that whole time). Target: p99 under attack within 2× of the quiet p99.`,
    '',
    ...authSection(results, 'bench/results/auth.json'),
  ];
  fs.mkdirSync(S.resultsDir, { recursive: true });
  fs.writeFileSync(path.join(S.resultsDir, 'auth.md'), lines.join('\n'));
  fs.writeFileSync(path.join(S.resultsDir, 'auth.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log(lines.join('\n'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
