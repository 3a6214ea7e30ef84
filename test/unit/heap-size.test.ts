// The exporter limits the old generation's growth unless the operator's own Node flags set it.
import { describe, expect, it } from 'vitest';
import { operatorFlags, setsHeapGrowth } from '../../src/heap-size.js';

describe('heap growth', () => {
  it('is set when Node was started without the flag', () => {
    expect(setsHeapGrowth([])).toBe(true);
    expect(setsHeapGrowth(['--max-old-space-size=512', '--enable-source-maps'])).toBe(true);
  });

  it('is left to the operator who gave it, in either spelling', () => {
    expect(setsHeapGrowth(['--heap-growing-percent=20'])).toBe(false);
    expect(setsHeapGrowth(['--heap_growing_percent=100'])).toBe(false);
  });

  it("reads the operator's NODE_OPTIONS too (process.execArgv leaves them out)", () => {
    const saved = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = '--max-semi-space-size=16  --heap-growing-percent=20';
    try {
      expect(setsHeapGrowth(operatorFlags())).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved;
    }
    expect(operatorFlags()).toEqual(expect.arrayContaining([...process.execArgv]));
  });
});
