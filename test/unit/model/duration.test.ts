import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../../src/model/duration.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['15s', 15_000],
    ['1m', 60_000],
    ['2h', 7_200_000],
    ['1m30s', 90_000],
    ['1h2m3s4ms', 3_723_004],
    ['1.5s', 1500],
    ['0.25m', 15_000],
    ['  10s ', 10_000],
    ['0', 0],
    ['0s', 0],
    ['1.0005s', 1001],
    ['1d', 86_400_000],
    ['1w', 604_800_000],
    ['1w2d3h', 788_400_000],
    ['1d12h', 129_600_000],
  ])('%s → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '   ', '15', '10 seconds', '-5s', '5S', '1y', 's', '1m30', '.5s', 'abc', '5s ms'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(text.trim() === '' ? 'empty duration' : 'is not a duration like 500ms, 15s, 1m30s, 2h or 1d');
  });

  // Prometheus refuses these too: a repeated unit, or a smaller one before a larger one.
  it.each(['1s1s', '30s1m', '1m1m', '5ms1s', '1h1d', '2s500ms500ms'])('refuses %j (units repeated or out of order)', (text) => {
    expect(() => parseDuration(text)).toThrow('repeats a unit or puts a smaller one first');
  });

  it('names the text it refuses', () => {
    expect(() => parseDuration('10 seconds')).toThrow('"10 seconds" is not a duration');
  });
});

describe('formatDuration', () => {
  it.each([
    [7_200_000, '2h'],
    [90_000, '90s'],
    [120_000, '2m'],
    [15_000, '15s'],
    [1500, '1500ms'],
    [0, '0s'],
    [86_400_000, '1d'],
    [129_600_000, '36h'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips through parseDuration', () => {
    for (const ms of [1, 999, 1000, 61_000, 3_600_000, 5_400_000]) expect(parseDuration(formatDuration(ms))).toBe(ms);
  });
});
