import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { PollFailureLog } from '../../../src/pipeline/failure-log.js';
import { ProcessMetrics } from '../../../src/pipeline/process-metrics.js';
import { Target } from '../../../src/target.js';
import { serve, sleep, type TestServer } from '../../support/http-server.js';

interface Line {
  level: number;
  msg: string;
  collector?: string;
  cause?: string;
  hint?: string;
  failing_for?: string;
  failing_for_seconds?: number;
  failed_polls?: number;
  collectors?: string[];
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
      'poll failure changed cause: timeout',
      'poll failed: HTTP 500',
      'polls succeed again: HTTP 500',
      'poll failed: timeout',
    ]);
  });

  // Issue 32: a dead broker gave one warning line in 7 minutes; an hour later the log said nothing was wrong.
  it('reminds of a lasting failure every reminder period (how long, how many polls), and logs its end with how long it lasted', () => {
    vi.useFakeTimers();
    try {
      const { log, lines } = capture();
      const failures = new PollFailureLog(log, { reminderMs: () => 60_000 });
      const warnings = () => lines.filter((l) => l.level === WARN);
      // Two collectors fail every 15 s for 7 minutes.
      for (let t = 0; t <= 7 * 60_000; t += 15_000) {
        failures.failed('overview', 'ECONNREFUSED', {});
        failures.failed('nodes', 'ECONNREFUSED', {});
        vi.advanceTimersByTime(15_000);
      }
      expect(warnings()[0]).toMatchObject({ msg: 'poll failed', collector: 'overview', cause: 'ECONNREFUSED' });
      const reminders = warnings().filter((l) => l.msg === 'polls still failing');
      // One per minute: at 1, 2, ... 7 minutes.
      expect(reminders.map((l) => l.failing_for)).toEqual(['1m0s', '2m0s', '3m0s', '4m0s', '5m0s', '6m0s', '7m0s']);
      expect(reminders[0]).toMatchObject({ cause: 'ECONNREFUSED', failing_for_seconds: 60, failed_polls: 9, collectors: ['overview', 'nodes'] });
      expect(warnings()).toHaveLength(8);
      failures.succeeded('overview');
      expect(lines.filter((l) => l.level === INFO)).toEqual([]);
      failures.succeeded('nodes');
      expect(lines.filter((l) => l.level === INFO)).toMatchObject([
        { msg: 'polls succeed again', cause: 'ECONNREFUSED', failing_for: '7m15s', failing_for_seconds: 435, failed_polls: 58, collectors: ['overview', 'nodes'] },
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the reminder period is read at each failure: a reload changes it', () => {
    let now = 0;
    let reminderMs = 600_000;
    const { log, lines } = capture();
    const failures = new PollFailureLog(log, { reminderMs: () => reminderMs, now: () => now });
    failures.failed('overview', 'HTTP 500', {});
    now = 120_000;
    failures.failed('overview', 'HTTP 500', {});
    expect(lines.filter((l) => l.msg === 'polls still failing')).toEqual([]);
    reminderMs = 60_000;
    now = 121_000;
    failures.failed('overview', 'HTTP 500', {});
    expect(lines.filter((l) => l.msg === 'polls still failing').map((l) => l.failing_for)).toEqual(['2m1s']);
  });

  it('a poll deadline names its collector\'s setting: two collectors timing out are two causes', () => {
    const { log, lines } = capture();
    const failures = new PollFailureLog(log);
    const deadline = (collector: string) => ({ collector, error: new Error('x'), deadlinePassed: true, timeoutMs: 30_000 });
    failures.failed('queues', "the poll's deadline of 30000 ms passed", {}, deadline('queues'));
    failures.failed('exchanges', "the poll's deadline of 30000 ms passed", {}, deadline('exchanges'));
    expect(lines.filter((l) => l.level === WARN).map((l) => l.hint)).toEqual([
      'the queues poll took longer than its deadline of 30 s: raise collectors.queues.timeout, or find why the broker answers slowly (a long list, a loaded node)',
      'the exchanges poll took longer than its deadline of 30 s: raise collectors.exchanges.timeout, or find why the broker answers slowly (a long list, a loaded node)',
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
    // Which user, and where its password came from (none configured here: guest).
    expect(warnings[0]?.hint).toContain('the broker refused user "guest" (HTTP 401)');
    expect(warnings[0]?.hint).toContain('guest is used, which RabbitMQ accepts only from localhost');
    expect(lines.filter((l) => l.msg === 'poll failed').length).toBeGreaterThanOrEqual(2 * enabled);
  }, 60_000);
});
