// Prometheus's own check of a text exposition (`promtool check metrics`), for tests and benchmark.
import { spawn } from 'node:child_process';
import { isExecutable, which } from './broker/availability.js';

/** Path of promtool (PROMTOOL_BIN overrides), or undefined when not installed. */
export function promtoolPath(): string | undefined {
  const override = process.env.PROMTOOL_BIN;
  if (override) return isExecutable(override) ? override : undefined;
  return which('promtool', ['/usr/bin', '/usr/local/bin']);
}

/** Pipe a Prometheus text exposition to `promtool check metrics`. Throws if promtool is missing. */
export async function checkMetricsWithPromtool(text: string): Promise<{ ok: boolean; output: string }> {
  const bin = promtoolPath();
  if (!bin) throw new Error('promtool is not installed (apt-get install prometheus, or set PROMTOOL_BIN)');
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal) reject(new Error(`promtool killed by ${signal}: ${output}`));
      else resolve({ ok: code === 0, output });
    });
    child.stdin.on('error', () => {
      /* promtool may exit before reading everything; the exit code tells */
    });
    child.stdin.end(text);
  });
}
