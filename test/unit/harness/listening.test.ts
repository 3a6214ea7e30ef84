// The harness reads where a process listens from its log (test/harness/listening.ts): the port of
// each line that names one, or a failure holding the process's output, never a hang.
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { listeningPorts, servingPort } from '../../harness/listening.js';

/** A Node child running `script`, its output piped. */
const child = (script: string) => spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });

it("reads the port of the exporter's serving /metrics line, in JSON or in logfmt, and of no other line", () => {
  expect(servingPort('{"level":30,"address":"127.0.0.1","port":40123,"protocol":"http","msg":"serving /metrics"}')).toBe(40123);
  expect(servingPort('ts=2026-01-01T00:00:00.000Z level=info msg="serving /metrics" address=127.0.0.1 port=40123 protocol=http')).toBe(40123);
  expect(servingPort('{"level":30,"port":40123,"msg":"starting"}')).toBeUndefined();
  expect(servingPort('ts=x level=info msg=starting port=40123')).toBeUndefined();
  expect(servingPort('ts=x level=info msg="serving /metrics" address=127.0.0.1 transport=40123')).toBeUndefined();
  expect(servingPort('{"msg":"serving /metrics"')).toBeUndefined();
});

it('resolves the ports of as many lines as asked, in order, the lines split across writes or not', async () => {
  const script = `process.stdout.write('{"msg":"starting"}\\n{"port":4001,"msg":"serv'); setTimeout(() => console.log('ing /metrics"}\\n{"port":4002,"msg":"serving /metrics"}'), 50); setTimeout(() => {}, 5000);`;
  const logging = child(script);
  try {
    expect(await listeningPorts(logging, { name: 'the child', timeoutMs: 20_000, count: 2 })).toEqual([4001, 4002]);
  } finally {
    logging.kill();
  }
}, 30_000);

it('fails with all the child wrote when it exits first, or logs no such line in time', async () => {
  const exiting = child(`console.log('{"port":4001,"msg":"starting"}'); console.error('cannot listen'); process.exit(3);`);
  await expect(listeningPorts(exiting, { name: 'the child', timeoutMs: 20_000 })).rejects.toThrow('the child exited with 3:\n{"port":4001,"msg":"starting"}\ncannot listen\n');
  const silent = child(`console.log('{"port":4001,"msg":"starting"}'); setTimeout(() => {}, 5000);`);
  try {
    // What it wrote within the 500 ms depends on how soon a loaded machine started it: the cause alone is checked.
    await expect(listeningPorts(silent, { name: 'the child', timeoutMs: 500 })).rejects.toThrow('the child logged 0 of the 1 ports it listens on within 500 ms:\n');
  } finally {
    silent.kill();
  }
}, 30_000);
