/**
 * Runs Debian's `prometheus` on a port of its own choosing (read from its log) and a private data
 * directory, scraping given targets, for end-to-end tests that check what a real Prometheus makes
 * of the exporter.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listeningPorts } from '../harness/listening.js';

export interface PrometheusProcess {
  url: string;
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** GET of an HTTP API path (e.g. `/api/v1/rules`): its `data`, or throws with Prometheus's error. */
  api<T = unknown>(pathAndQuery: string): Promise<T>;
  stop(): Promise<void>;
  logs(): string;
}

export function prometheusAvailable(): boolean {
  return spawnSync('prometheus', ['--version'], { stdio: 'ignore' }).status === 0;
}

export interface PrometheusOptions {
  /** Rule files to load (absolute paths), evaluated every scrape interval. */
  ruleFiles?: string[];
  /** The scrape_configs list as YAML (e.g. the documented /probe relabeling), instead of one job scraping scrapeTargets. */
  scrapeConfigs?: string;
}

export async function startPrometheus(scrapeTargets: string[], scrapeInterval = '1s', options: PrometheusOptions = {}): Promise<PrometheusProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'rmqexp-prom-'));
  const config = `global:
  scrape_interval: ${scrapeInterval}
  scrape_timeout: ${scrapeInterval}
  evaluation_interval: ${scrapeInterval}
${options.ruleFiles?.length ? `rule_files: [${options.ruleFiles.map((f) => `'${f}'`).join(', ')}]\n` : ''}${
    options.scrapeConfigs ??
    `scrape_configs:
  - job_name: rabbitmq
    static_configs:
      - targets: [${scrapeTargets.map((t) => `'${t}'`).join(', ')}]
`
  }`;
  writeFileSync(join(dir, 'prometheus.yml'), config);
  const child: ChildProcess = spawn(
    'prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, '--web.listen-address=127.0.0.1:0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const [port] = await listeningPorts(child, { name: 'prometheus', timeoutMs: 20_000, portOf: listeningOn }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  const url = `http://127.0.0.1:${port}`;
  const handle: PrometheusProcess = {
    url,
    logs: () => output,
    async query(expr) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await response.json()) as { status: string; data?: { result: { metric: Record<string, string>; value: [number, string] }[] }; error?: string };
      if (body.status !== 'success') throw new Error(`query ${expr}: ${body.error}`);
      return body.data?.result ?? [];
    },
    async api<T>(pathAndQuery: string) {
      const response = await fetch(`${url}${pathAndQuery}`);
      const body = (await response.json()) as { status: string; data?: T; error?: string };
      if (body.status !== 'success') throw new Error(`${pathAndQuery}: ${body.error}`);
      return body.data as T;
    },
    stop,
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${url}/-/ready`)).status === 200) return handle;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      await handle.stop();
      throw new Error(`prometheus not ready within 20 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The port of Prometheus's `msg="Listening on" address=HOST:PORT` line (its web server's, on stderr). */
function listeningOn(line: string): number | undefined {
  const logged = /(?:^| )msg="Listening on" address=\S*:(\d+)(?: |$)/.exec(line);
  return logged ? Number(logged[1]) : undefined;
}
