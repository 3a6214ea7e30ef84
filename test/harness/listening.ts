// Where a process that a test starts listens, read from its own log: it is started on port 0 and
// says which port the system gave it. A port picked beforehand (ports.ts) can be taken by another
// test's outgoing connection before the process listens: both come from the ephemeral range.
import type { ChildProcess } from 'node:child_process';

/** The port of the exporter's (or the demo's) `serving /metrics` line, in JSON or logfmt; undefined for any other line. */
export function servingPort(line: string): number | undefined {
  if (line.startsWith('{')) {
    let record: { msg?: unknown; port?: unknown };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      return undefined;
    }
    return record.msg === 'serving /metrics' && typeof record.port === 'number' ? record.port : undefined;
  }
  const logfmt = /(?:^| )msg="serving \/metrics" (?:.* )?port=(\d+)(?: |$)/.exec(line);
  return logfmt ? Number(logfmt[1]) : undefined;
}

export interface ListeningOptions {
  /** What the errors call the process, e.g. `exporter`. */
  name: string;
  timeoutMs: number;
  /** How many lines to wait for: one per address it listens on. Default 1. */
  count?: number;
  /** The port a line of its log says it listens on, or undefined. Default: servingPort. */
  portOf?: (line: string) => number | undefined;
}

/**
 * The ports of the first `count` lines of the child's stdout and stderr that name one, in the order
 * logged. Fails with all the child wrote when it exits first or has not logged them within
 * `timeoutMs` (the caller stops it). Call it right after the spawn: it reads the pipes from then
 * on, and on after it resolves (unkept), so that the child never blocks on a full pipe.
 */
export function listeningPorts(child: ChildProcess, options: ListeningOptions): Promise<number[]> {
  const { name, timeoutMs, count = 1, portOf = servingPort } = options;
  return new Promise((resolve, reject) => {
    const ports: number[] = [];
    let output = '';
    let settled = false;
    const settle = (error?: Error) => {
      settled = true;
      clearTimeout(timer);
      child.off('close', closed);
      if (error) reject(error);
      else resolve(ports);
    };
    const fail = (why: string) => settle(new Error(`${name} ${why}:\n${output}`));
    const timer = setTimeout(() => fail(`logged ${ports.length} of the ${count} ports it listens on within ${timeoutMs} ms`), timeoutMs);
    // 'close', not 'exit': its pipes are read to the end, so the output holds why it exited.
    const closed = (code: number | null, signal: NodeJS.Signals | null) => fail(`exited with ${code ?? signal}`);
    child.once('close', closed);
    for (const stream of [child.stdout, child.stderr]) {
      let partial = '';
      stream?.on('data', (chunk: Buffer) => {
        if (settled) return;
        const text = chunk.toString();
        output += text;
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          const port = portOf(line);
          if (port === undefined) continue;
          ports.push(port);
          if (ports.length === count) return settle();
        }
      });
    }
  });
}
