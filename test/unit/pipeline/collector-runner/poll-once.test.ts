// One poll of the collector runner (pollOnce): what it records in the state and the snapshot.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { familyBody } from '../../../../src/exposition/text-format.js';
import type { BrokerReport, BrokerInfoReader } from '../../../../src/broker/broker-info-reader.js';
import { ManagementError } from '../../../../src/broker/errors.js';
import { M, BROKER, harness } from './fake-collector.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('CollectorRunner.pollOnce', () => {
  it('records a success with the families, skipped values and duration; passes options and memory', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const memories: Map<string, unknown>[] = [];
    const { runner, state, finished } = harness(async (ctx) => {
      // Each poll takes 250 ms by the clock the runner reads.
      vi.advanceTimersByTime(250);
      expect(ctx.options).toEqual({ flag: true });
      expect(ctx.broker).toBe(BROKER);
      memories.push(ctx.carryOver);
      ctx.carryOver.set('polls', ((ctx.carryOver.get('polls') as number | undefined) ?? 0) + 1);
      ctx.sink.add(M.v, [], ctx.carryOver.get('polls'));
      ctx.sink.add(M.v, [], null);
    });
    await runner.pollOnce();
    await runner.pollOnce();
    const c = state.collectors.get('test')!;
    expect(c.lastSuccess).toBe(true);
    expect(c.attempts).toBe(2);
    expect(c.samples).toBe(1);
    expect(c.skipped).toBe(1);
    expect(familyBody(c.families[0]!).toString()).toBe('rabbitmq_test_runner_value 2\n');
    expect(c.lastDurationSeconds).toBeCloseTo(0.25, 6);
    expect(memories[0]).toBe(memories[1]);
    expect(finished.count).toBe(2);
  });

  it('records what the poll dropped, by reason, and replaces it on the next success', async () => {
    let poll = 0;
    const { runner, state } = harness(async (ctx) => {
      poll++;
      ctx.sink.add(M.v, [], 1);
      if (poll === 1) {
        ctx.sink.add(M.v, [], 2); // the same series again
        ctx.sink.drop('no_name', 3);
      }
    });
    await runner.pollOnce();
    const c = state.collectors.get('test')!;
    expect(Object.fromEntries(c.dropped)).toEqual({ no_name: 3, duplicate: 1 });
    expect(familyBody(c.families[0]!).toString()).toBe('rabbitmq_test_runner_value 1\n');
    await runner.pollOnce();
    expect(Object.fromEntries(state.collectors.get('test')!.dropped)).toEqual({ no_name: 0, duplicate: 0 });
  });

  it('a ManagementError is recorded as path (without query) and detail', async () => {
    const { runner, state, finished } = harness(async () => {
      throw new ManagementError('http_status', '/api/nodes?columns=name,running', 'HTTP 500 (x: y)', 500);
    });
    await runner.pollOnce();
    expect(state.collectors.get('test')!).toMatchObject({ lastSuccess: false, lastError: '/api/nodes: HTTP 500 (x: y)', attempts: 1 });
    expect(finished.count).toBe(1);
  });

  it('a failing broker info lookup fails the poll', async () => {
    const { runner, state } = harness(async () => undefined, {}, {
      brokerInfoReader: {
        latest: async () => {
          throw new ManagementError('network', '/api/overview', 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:15672');
        },
      } as unknown as BrokerInfoReader,
    });
    await runner.pollOnce();
    expect(state.collectors.get('test')!.lastError).toBe('/api/overview: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:15672');
  });

  it('the collector describing the broker gets this poll\'s reading of /api/overview; the others the latest BrokerInfo', async () => {
    const seen: (BrokerReport | undefined)[] = [];
    const describing = harness(async (ctx) => void seen.push(ctx.brokerReport), {}, {}, 'overview');
    await describing.runner.pollOnce();
    expect(describing.reads).toEqual({ read: 1, latest: 0 });
    expect(seen[0]).toEqual({ overview: { management_version: BROKER.managementVersion }, info: BROKER });
    const other = harness(async (ctx) => void seen.push(ctx.brokerReport));
    await other.runner.pollOnce();
    expect(other.reads).toEqual({ read: 0, latest: 1 });
    expect(seen[1]).toBeUndefined();
  });

  it('rabbitmq_up follows the runner of the overview collector', async () => {
    let fail = false;
    const { runner, state } = harness(
      async () => {
        if (fail) throw new Error('down');
      },
      { name: 'overview' },
      {},
      'overview',
    );
    expect(state.up).toBe(false);
    expect(state.firstPollAttempted).toBe(false);
    await runner.pollOnce();
    expect(state.up).toBe(true);
    fail = true;
    await runner.pollOnce();
    expect(state.up).toBe(false);
    expect(state.firstPollAttempted).toBe(true);
  });
});
