/**
 * The built exporter as the tests run it (built-exporter.ts): started from a YAML text, flags and
 * an environment, ready once /-/ready answers 200, and its /metrics read. Used by the broker
 * tests and the `process` project.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { samples } from '../support/parse-exposition.js';
import { spawnBuiltExporter, untilServing } from './built-exporter.js';
import { eventually } from './eventually.js';
import { freePort } from './ports.js';

export interface ExporterProcess {
  url: string;
  /** The config file it was started with (tests rewrite it before a reload). */
  configFile: string;
  logs(): string;
  metrics(): Promise<{ status: number; text: string }>;
  /** Value of one series, labels matched exactly as rendered, e.g. `rabbitmq_up` or `x{node="a"}`. */
  value(series: string): Promise<number | undefined>;
  signal(name: NodeJS.Signals): void;
  /** How many threads its process has now (Linux: /proc/<pid>/status). */
  threads(): number;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** The YAML config file's text; absent: started without --config, from its environment and flags alone. */
  configYaml?: string;
  /** The port its environment tells it (kbudde's PUBLISH_PORT): then no --web.listen-address flag is given. */
  portFromEnvironment?: number;
  args?: string[];
  env?: Record<string, string>;
  /** Node's own flags, after those it always runs with (built-exporter.ts). */
  nodeArgs?: string[];
  /** For an exporter serving HTTPS with basic auth (--web.config.file): the CA and the credentials it wants. */
  readyCheck?: { ca: Buffer; authorization?: string; cert?: Buffer; key?: Buffer };
  /** Where metrics() reads (--web.telemetry-path); default /metrics. */
  metricsPath?: string;
}

export async function startExporter(options: StartOptions): Promise<ExporterProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'rmqexp-e2e-'));
  const configFile = join(dir, 'config.yaml');
  if (options.configYaml !== undefined) writeFileSync(configFile, options.configYaml);
  const port = options.portFromEnvironment ?? (await freePort());
  const configArgs = options.configYaml === undefined ? [] : ['--config', configFile];
  const listenArgs = options.portFromEnvironment === undefined ? ['--web.listen-address', `127.0.0.1:${port}`] : [];
  const exporter = spawnBuiltExporter([...configArgs, ...listenArgs, ...(options.args ?? [])], {
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}),
  });
  const { child } = exporter;
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const secure = options.readyCheck;
  const url = `${secure ? 'https' : 'http'}://127.0.0.1:${port}`;
  const dispatcher = secure ? new Agent({ connect: { ca: secure.ca, cert: secure.cert, key: secure.key } }) : undefined;
  const get = (path: string) =>
    undiciFetch(`${url}${path}`, { dispatcher, headers: secure?.authorization ? { authorization: secure.authorization } : {} });
  const handle: ExporterProcess = {
    url,
    configFile,
    logs: () => output,
    async metrics() {
      const response = await get(options.metricsPath ?? '/metrics');
      return { status: response.status, text: await response.text() };
    },
    async value(series) {
      const { text } = await handle.metrics();
      return samples(text).get(series);
    },
    signal(name) {
      child.kill(name);
    },
    threads() {
      const line = /^Threads:\s+(\d+)$/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (!line) throw new Error(`/proc/${child.pid}/status has no Threads line`);
      return Number(line[1]);
    },
    async stop() {
      await exporter.stop();
      await dispatcher?.close();
    },
  };
  try {
    await untilServing(exporter, async () => (await get('/-/ready')).status === 200, () => output);
  } catch (error) {
    await dispatcher?.close();
    throw error;
  }
  return handle;
}

/**
 * The exposition once every enabled collector has finished its first poll, as the exporter itself
 * reports it (a `rabbitmq_exporter_collector_success` series beside each `_collector_enabled` one):
 * before that, a collector's families, and series derived from them, are simply not there yet.
 */
export async function afterFirstPolls(exporter: ExporterProcess, timeoutMs: number): Promise<string> {
  return eventually(
    async () => {
      const { text } = await exporter.metrics();
      const values = samples(text);
      const enabled = [...values.keys()].filter((k) => k.startsWith('rabbitmq_exporter_collector_enabled{'));
      const polled = enabled.every((k) => values.has(k.replace('_collector_enabled{', '_collector_success{')));
      return enabled.length > 0 && polled ? text : undefined;
    },
    timeoutMs,
    'the first poll of every enabled collector',
  );
}
