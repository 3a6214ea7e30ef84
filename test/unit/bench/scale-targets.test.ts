import { describe, expect, it } from 'vitest';
import type { SizeResult } from '../../../bench/scale/measure.js';
import { cpuOverParse, targetChecks } from '../../../bench/scale/targets.js';

/** A size's figures: CPU per poll (10% and all changing), RSS, and /metrics p99, max and event-loop delay (ms). */
function size(queues: number, f: { cpu10: number; cpuAll: number; rssMb: number; p99: number; max: number; loop: number }): SizeResult {
  const phase = (fraction: number, cpu: number) => ({ fraction, changed: [0], cpuSeconds: [cpu, cpu, cpu], wallSeconds: [15], rssMaxBytes: f.rssMb * 1e6 });
  return {
    queues,
    queueBodyBytes: 0,
    parseSeconds: [1],
    changes: [phase(0.1, f.cpu10), phase(1, f.cpuAll)],
    latency: { fraction: 0.1, pollSeconds: [1], scrapes: 100, scrapesDuring: 50, p50DuringMs: 1, p99DuringMs: f.p99, maxDuringMs: f.max, p99AllMs: f.p99, failedScrapes: 0 },
    rssMaxBytes: f.rssMb * 1e6,
    hwmBytes: f.rssMb * 1e6,
    loopMaxSeconds: f.loop / 1000,
    condition: 'ok',
    series: 0,
    textBytes: 0,
    gzipBytes: 0,
    queueAnswerBytes: 0,
  } as unknown as SizeResult;
}

describe("issue 29's scale targets", () => {
  it('at 300,000 queues judges every figure the 100k targets judge against 3.3 times the 100k one', () => {
    const k100 = size(100_000, { cpu10: 2, cpuAll: 3, rssMb: 370, p99: 18, max: 20, loop: 45 });
    const k300 = size(300_000, { cpu10: 6, cpuAll: 9, rssMb: 800, p99: 20, max: 230, loop: 45 });
    const ratios = targetChecks([k100, k300]).filter((c) => c.queues === 300_000);
    expect(ratios.map((c) => [c.what, Number(c.measured.toFixed(2)), c.pass])).toEqual([
      ['CPU per poll (10% changing) / the 100k figure', 3, true],
      ['CPU per poll (all changing) / the 100k figure', 3, true],
      ['RSS / the 100k figure', 2.16, true],
      ['/metrics p99 during polls / the 100k figure', 1.11, true],
      ['/metrics max during polls / the 100k figure', 11.5, false],
      ['longest event-loop delay / the 100k figure', 1, true],
    ]);
  });

  it("judges CPU per poll against the parse of each poll's own answers in its window, where the run measured it", () => {
    const k100 = size(100_000, { cpu10: 2, cpuAll: 3, rssMb: 370, p99: 18, max: 20, loop: 45 });
    // The parse after the run (1 s) would make it 2×; each poll over its own window's parse: 2/0.5, 3/0.5, and a window with none.
    k100.changes[0] = { ...k100.changes[0]!, cpuSeconds: [2, 3, 9], parseSeconds: [0.5, 0.5, Number.NaN] };
    expect(cpuOverParse(k100, 0.1)).toBe(5);
    expect(targetChecks([k100]).find((c) => c.what.includes('10% of queues'))).toMatchObject({ measured: 5, pass: false });
  });

  it('falls back to the parse after the run in results whose windows have none', () => {
    const k100 = size(100_000, { cpu10: 2, cpuAll: 3, rssMb: 370, p99: 18, max: 20, loop: 45 });
    expect(cpuOverParse(k100, 1)).toBe(3);
    k100.changes[1] = { ...k100.changes[1]!, parseSeconds: [Number.NaN, Number.NaN, Number.NaN] };
    expect(cpuOverParse(k100, 1)).toBe(3);
  });

  it('judges a run with families on by the series and RSS targets of families alone', () => {
    const k100 = { ...size(100_000, { cpu10: 9, cpuAll: 9, rssMb: 170, p99: 30, max: 20, loop: 45 }), series: 440 };
    expect(targetChecks([k100], true).map((c) => [c.what, c.measured, c.limit, c.pass])).toEqual([
      ['series, families on and per-queue series off', 440, 50_000, true],
      ['RSS, max over the run, families on and per-queue series off', 170, 200, true],
    ]);
    // The same figures judged as a run of the default metric set fail its CPU and p99 targets.
    expect(targetChecks([k100]).filter((c) => !c.pass).map((c) => c.what)).toEqual([
      'CPU per poll / JSON.parse of the same bodies, 10% of queues changing',
      'CPU per poll / JSON.parse of the same bodies, all queues changing',
      '/metrics p99 during polls',
    ]);
  });
});
