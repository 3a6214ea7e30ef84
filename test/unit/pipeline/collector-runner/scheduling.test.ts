// The collector runner's schedule, with fake timers: intervals, overlap, backoff, jitter.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { MIN_POLL_SPACING_MS } from '../../../../src/pipeline/collector-runner.js';
import { harness, diffs } from './fake-collector.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('CollectorRunner with fake timers', () => {
  it('never overlaps itself when a poll takes longer than the interval', async () => {
    vi.useFakeTimers();
    let concurrent = 0;
    let maxConcurrent = 0;
    const starts: number[] = [];
    const { runner, state } = harness(async () => {
      starts.push(Date.now());
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await new Promise((resolve) => setTimeout(resolve, 250));
      concurrent--;
    });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(2000);
    const stopping = runner.stop();
    await vi.advanceTimersByTimeAsync(1000);
    await stopping;
    expect(maxConcurrent).toBe(1);
    expect(starts.length).toBeGreaterThanOrEqual(6);
    // Each poll starts only after the previous one (250 ms) finished.
    for (const d of diffs(starts)) expect(d).toBeGreaterThanOrEqual(250);
    expect(state.collectors.get('test')!.attempts).toBe(starts.length);
  });

  // Issue 8: an interval Node's timer cannot hold fired after 1 ms, and the exporter flooded the
  // broker. Whatever the configuration says, one collector's polls start at least
  // MIN_POLL_SPACING_MS apart.
  it.each([
    ['an interval of 1 ms', 1],
    ['an interval longer than a timer holds (800h)', 800 * 3_600_000],
    ['an interval of 0', 0],
  ])('never polls in a tight loop: %s', async (_what, intervalMs) => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const { runner } = harness(async () => {
      starts.push(Date.now());
    }, { intervalMs }, { minSpacingMs: undefined });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(10_000);
    await runner.stop();
    expect(MIN_POLL_SPACING_MS).toBe(1000);
    expect(starts.length).toBeGreaterThanOrEqual(1);
    expect(starts.length).toBeLessThanOrEqual(11);
    for (const d of diffs(starts)) expect(d).toBeGreaterThanOrEqual(MIN_POLL_SPACING_MS);
  });

  it('never polls in a tight loop when every poll fails at once with a backoff_max of 1 ms', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const { runner } = harness(async () => {
      starts.push(Date.now());
      throw new Error('refused');
    }, { intervalMs: 1 }, { minSpacingMs: undefined, backoffMaxMs: 1 });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(10_000);
    await runner.stop();
    expect(starts.length).toBeLessThanOrEqual(11);
    for (const d of diffs(starts)) expect(d).toBeGreaterThanOrEqual(MIN_POLL_SPACING_MS);
  });

  it('starts polls start-to-start on the interval (a 30 ms poll does not push the schedule)', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const { runner, finished } = harness(async () => {
      starts.push(Date.now());
      await new Promise((resolve) => setTimeout(resolve, 30));
    });
    const t0 = Date.now();
    runner.start(50);
    await vi.advanceTimersByTimeAsync(1000);
    await runner.stop();
    expect(starts[0]).toBe(t0 + 50);
    expect(starts.length).toBeGreaterThanOrEqual(9);
    expect(new Set(diffs(starts))).toEqual(new Set([100]));
    expect(finished.count).toBeGreaterThanOrEqual(starts.length - 1);
  });

  it('backs off 1, 2, 4, 8 intervals while failing (capped at 8), and resets after a success', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    let failuresLeft = 5;
    const { runner, state } = harness(async () => {
      starts.push(Date.now());
      if (failuresLeft-- > 0) throw new Error('broker down');
    });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(2300 + 250);
    await runner.stop();
    expect(diffs(starts).slice(0, 7)).toEqual([100, 200, 400, 800, 800, 100, 100]);
    const c = state.collectors.get('test')!;
    expect(c.lastSuccess).toBe(true);
    expect(c.lastError).toBeUndefined();
  });

  it('backoff is capped by poll.backoff_max', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const { runner, state } = harness(
      async () => {
        starts.push(Date.now());
        throw new Error('still down');
      },
      {},
      { backoffMaxMs: 300 },
    );
    runner.start(0);
    await vi.advanceTimersByTimeAsync(2000);
    await runner.stop();
    expect(diffs(starts).slice(0, 6)).toEqual([100, 200, 300, 300, 300, 300]);
    expect(state.collectors.get('test')!).toMatchObject({ lastSuccess: false, lastError: 'still down' });
  });

  // Issue 32: the overview backed off up to 8 intervals, and rabbitmq_up stayed 0 for 80 s after the broker was back.
  it('the collector describing the broker never backs off: it polls every interval while failing', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const { runner } = harness(
      async () => {
        starts.push(performance.now());
        throw new Error('broker down');
      },
      {},
      {},
      'overview',
    );
    runner.start(0);
    await vi.advanceTimersByTimeAsync(1000);
    await runner.stop();
    expect(starts.length).toBeGreaterThanOrEqual(10);
    expect(new Set(diffs(starts))).toEqual(new Set([100]));
  });

  it('when the broker answers again, the collectors in backoff poll at once instead of waiting it out', async () => {
    vi.useFakeTimers();
    let brokerDown = true;
    const otherStarts: number[] = [];
    const other = harness(async () => {
      otherStarts.push(performance.now());
      if (brokerDown) throw new Error('broker down');
    });
    const overview = harness(
      async () => {
        if (brokerDown) throw new Error('broker down');
      },
      {},
      { onBrokerBack: () => other.runner.retrySoon() },
      'overview',
    );
    overview.runner.start(0);
    other.runner.start(0);
    // The other collector fails at 0, 100, 300, 700: its next start would be at 1500 (8 intervals).
    await vi.advanceTimersByTimeAsync(750);
    expect(otherStarts).toEqual([0, 100, 300, 700]);
    brokerDown = false;
    // The overview's next poll (at 800) succeeds, and the other collector polls right after it.
    await vi.advanceTimersByTimeAsync(100);
    await overview.runner.stop();
    await other.runner.stop();
    // A timer of 0 ms fires after 1 ms.
    expect(otherStarts).toEqual([0, 100, 300, 700, 801]);
    expect(other.state.collectors.get('test')!.lastSuccess).toBe(true);
  });

  it('retrySoon changes nothing for a collector that is not failing', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const { runner } = harness(async () => {
      starts.push(performance.now());
    });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(150);
    runner.retrySoon();
    await vi.advanceTimersByTimeAsync(100);
    await runner.stop();
    expect(starts).toEqual([0, 100, 200]);
  });

  // Issue 32: times were wall-clock times; a step back of the clock (NTP) held every poll for as long as the step.
  it('a step of the wall clock moves no poll: the schedule is monotonic', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const { runner } = harness(async () => {
      starts.push(performance.now());
      // The clock steps while a poll runs: back an hour during the third, forward two during the fifth.
      if (starts.length === 3) vi.setSystemTime(Date.now() - 3_600_000);
      if (starts.length === 5) vi.setSystemTime(Date.now() + 7_200_000);
    });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(650);
    await runner.stop();
    expect(starts).toEqual([0, 100, 200, 300, 400, 500, 600]);
  });

  it('a backoff_max below the interval never makes polls more frequent than the interval', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const { runner } = harness(
      async () => {
        starts.push(Date.now());
        throw new Error('down');
      },
      {},
      { backoffMaxMs: 10 },
    );
    runner.start(0);
    await vi.advanceTimersByTimeAsync(1000);
    await runner.stop();
    expect(new Set(diffs(starts))).toEqual(new Set([100]));
  });

  it('jitter moves each start by at most ±jitter × interval (exact with a fixed random)', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const randoms = [0, 1, 0.25, 0.5, 0.75];
    let i = 0;
    const { runner } = harness(
      async () => {
        starts.push(Date.now());
      },
      {},
      { jitter: 0.2, random: () => randoms[i++ % randoms.length]! },
    );
    runner.start(0);
    await vi.advanceTimersByTimeAsync(600);
    await runner.stop();
    const d = diffs(starts);
    expect(d.slice(0, 5).map((x) => Math.round(x))).toEqual([80, 120, 90, 100, 110]);
  });

  it('jitter with Math.random stays within ±jitter × interval and does vary', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const { runner } = harness(
      async () => {
        starts.push(Date.now());
      },
      {},
      { jitter: 0.3, random: undefined },
    );
    runner.start(0);
    await vi.advanceTimersByTimeAsync(10_000);
    await runner.stop();
    const d = diffs(starts);
    expect(d.length).toBeGreaterThan(50);
    for (const x of d) {
      expect(x).toBeGreaterThanOrEqual(69);
      expect(x).toBeLessThanOrEqual(131);
    }
    expect(new Set(d.map((x) => Math.round(x))).size).toBeGreaterThan(5);
  });

  it('stop() cancels the pending start: no poll after it', async () => {
    vi.useFakeTimers();
    let polls = 0;
    const { runner } = harness(async () => {
      polls++;
    });
    runner.start(500);
    await vi.advanceTimersByTimeAsync(100);
    await runner.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(polls).toBe(0);
  });

  it('stop() aborts the poll in flight and no further poll starts', async () => {
    vi.useFakeTimers();
    let polls = 0;
    let sawAbort = false;
    const { runner, state } = harness(async (ctx) => {
      polls++;
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      sawAbort = true;
      throw new ManagementError('aborted', '/api/slow', 'cancelled: the poll ran past its deadline or the exporter is stopping');
    });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(10);
    expect(polls).toBe(1);
    await runner.stop();
    expect(sawAbort).toBe(true);
    await vi.advanceTimersByTimeAsync(5000);
    expect(polls).toBe(1);
    expect(state.collectors.get('test')!.lastSuccess).toBe(false);
  });

  // Issue 24: every poll's deadline timer outlived the poll by its whole timeout, on 10,000 idle targets.
  it('a finished poll leaves no timer behind but the next start, and its signal ended with it', async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    const { runner } = harness(async (ctx) => {
      signal = ctx.signal;
    });
    runner.start(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(signal?.aborted).toBe(true);
    // The poll's deadline is 60 s away: only the next start is pending.
    expect(vi.getTimerCount()).toBe(1);
    await runner.stop();
    expect(vi.getTimerCount()).toBe(0);
  });
});
