/**
 * The built exporter as the tests run it (built-exporter.ts): started from a YAML text, flags and
 * an environment, on port 0 and the port read from its log (listening.ts), ready once /-/ready
 * answers 200, and its /metrics read. Used by the broker
 * tests and the `process` project.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { samples } from '../support/parse-exposition.js';
import { spawnBuiltExporter, untilServing } from './built-exporter.js';
import { eventually } from './eventually.js';
import { getOnce } from './get-once.js';
import { listeningPorts } from './listening.js';

/**
 * How long the built exporter may take to log its listening line: about a second alone; under
 * .ci/run's load (load average 16, Node 26) one of two exporters started together logged nothing in 20 s.
 */
const START_TIMEOUT_MS = 60_000;

export interface ExporterProcess {
  /** On the first port it listens on. */
  url: string;
  /** Every port it listens on, in the order of its `serving /metrics` lines. */
  ports: number[];
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
  /**
   * Its environment or config file says where it listens, on port 0 (kbudde's PUBLISH_PORT=0, a
   * web.listen_address of the YAML): then no --web.listen-address flag is given.
   */
  listenAddressConfigured?: boolean;
  /** How many addresses it listens on, each logged by a `serving /metrics` line; default 1. */
  addresses?: number;
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
  const configArgs = options.configYaml === undefined ? [] : ['--config', configFile];
  const listenArgs = options.listenAddressConfigured ? [] : ['--web.listen-address', '127.0.0.1:0'];
  const exporter = spawnBuiltExporter([...configArgs, ...listenArgs, ...(options.args ?? [])], {
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}),
  });
  const { child } = exporter;
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ports = await listeningPorts(child, { name: 'exporter', timeoutMs: START_TIMEOUT_MS, count: options.addresses ?? 1 }).catch(async (error: unknown) => {
    await exporter.stop(5_000);
    throw error;
  });
  const secure = options.readyCheck;
  const url = `${secure ? 'https' : 'http'}://127.0.0.1:${ports[0]}`;
  const get = (path: string) =>
    getOnce(`${url}${path}`, { ...(secure?.authorization ? { headers: { authorization: secure.authorization } } : {}), ...(secure ? { ca: secure.ca, cert: secure.cert, key: secure.key } : {}) });
  const handle: ExporterProcess = {
    url,
    ports,
    configFile,
    logs: () => output,
    async metrics() {
      return get(options.metricsPath ?? '/metrics');
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
    },
  };
  await untilServing(exporter, async () => (await get('/-/ready')).status === 200, () => output);
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
