import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { PollFailureLog } from '../../../src/scheduler/failure-log.js';
import { ProcessMetrics } from '../../../src/self/process-metrics.js';
import { Target } from '../../../src/target.js';
import { serve, sleep, type TestServer } from '../support/http-server.js';

interface Line {
  level: number;
  msg: string;
  collector?: string;
  cause?: string;
}

function capture(): { log: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Line);
      done();
    },
  });
  return { log: pino({ level: 'debug' }, sink), lines };
}

const WARN = 40;
const INFO = 30;
const DEBUG = 20;

describe('PollFailureLog', () => {
  it('logs a cause once for the target, then once when no collector has it any more', () => {
    const { log, lines } = capture();
    const failures = new PollFailureLog(log);
    for (let round = 0; round < 3; round++) for (const c of ['overview', 'nodes', 'queues']) failures.failed(c, 'HTTP 401', {});
    expect(lines.filter((l) => l.level === WARN).map((l) => [l.collector, l.cause])).toEqual([['overview', 'HTTP 401']]);
    failures.succeeded('overview');
    failures.succeeded('nodes');
    expect(lines.filter((l) => l.level === INFO)).toEqual([]);
    failures.succeeded('queues');
    expect(lines.filter((l) => l.level === INFO).map((l) => [l.msg, l.cause])).toEqual([['polls succeed again', 'HTTP 401']]);
    expect(lines.filter((l) => l.level === DEBUG)).toHaveLength(8 + 2);
  });

  it('logs again when a collector changes cause, and when a cause comes back', () => {
    const { log, lines } = capture();
    const failures = new PollFailureLog(log);
    failures.failed('queues', 'timeout', {});
    failures.failed('queues', 'timeout', {});
    failures.failed('queues', 'HTTP 500', {});
    failures.succeeded('queues');
    failures.failed('queues', 'timeout', {});
    expect(lines.filter((l) => l.level >= INFO).map((l) => `${l.msg}: ${l.cause}`)).toEqual([
      'poll failed: timeout',
      'poll failed: HTTP 500',
      'polls succeed again: HTTP 500',
      'poll failed: timeout',
    ]);
  });

  it('a success of a collector that was not failing logs nothing', () => {
    const { log, lines } = capture();
    new PollFailureLog(log).succeeded('nodes');
    expect(lines).toEqual([]);
  });
});

describe('a wrong password against every collector (issue 8: 15 identical 401 lines per round)', () => {
  let server: TestServer | undefined;
  let target: Target | undefined;
  afterEach(async () => {
    await target?.stop();
    await server?.close();
  });

  it('gives one warning line for the whole target, however many collectors and rounds', async () => {
    server = await serve((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not_authorized', reason: 'Login failed' }));
    });
    const config = loadConfig({ pollInterval: '1s' }, { RABBITMQ_URL: server.url }, COLLECTORS);
    const { log, lines } = capture();
    target = new Target(config, new ProcessMetrics(), log);
    target.start();
    // Every enabled collector fails at least twice (first poll, then one interval later).
    const enabled = config.collectors.filter((c) => c.enabled).length;
    for (let i = 0; i < 200 && [...target.state.collectors.values()].some((c) => c.attempts < 2); i++) await sleep(100);
    expect([...target.state.collectors.values()].every((c) => c.attempts >= 2 && c.lastSuccess === false)).toBe(true);
    const warnings = lines.filter((l) => l.level >= WARN);
    expect(warnings.map((l) => l.msg)).toEqual(['poll failed']);
    expect(warnings[0]?.cause).toContain('HTTP 401');
    expect(lines.filter((l) => l.msg === 'poll failed').length).toBeGreaterThanOrEqual(2 * enabled);
  }, 60_000);
});
