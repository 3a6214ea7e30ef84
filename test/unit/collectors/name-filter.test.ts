import { describe, expect, it } from 'vitest';
import { NameFilter, nameFilterSchema } from '../../../src/collectors/name-filter.js';

describe('NameFilter', () => {
  it('keeps everything when neither include nor exclude is set', () => {
    const f = new NameFilter(nameFilterSchema.parse(undefined));
    expect(f.isActive).toBe(false);
    expect(f.includePattern).toBeUndefined();
    expect(f.matches('')).toBe(true);
    expect(f.matches('anything at all')).toBe(true);
  });

  it('include is a search, not anchored; exclude wins over include', () => {
    const f = new NameFilter({ include: 'orders', exclude: '\\.tmp$' });
    expect(f.isActive).toBe(true);
    expect(f.includePattern).toBe('orders');
    expect(f.matches('eu.orders.new')).toBe(true);
    expect(f.matches('orders.tmp')).toBe(false);
    expect(f.matches('billing')).toBe(false);
    expect(new NameFilter({ include: '^orders\\.' }).matches('eu.orders.new')).toBe(false);
  });

  it('matches names with spaces, quotes, backslashes, newlines and non-ASCII', () => {
    expect(new NameFilter({ include: '^очередь ' }).matches('очередь "x" \\ y')).toBe(true);
    expect(new NameFilter({ exclude: '\\\\' }).matches('a\\b')).toBe(false);
    expect(new NameFilter({ include: '^a b%/c$' }).matches('a b%/c')).toBe(true);
    expect(new NameFilter({ include: '^line$' }).matches('line\nbreak')).toBe(false);
    expect(new NameFilter({ include: '\\p{L}' }).matches('ж')).toBe(true); // unicode flag
  });

  it('gives the same answer on repeated calls (no lastIndex state)', () => {
    const f = new NameFilter({ include: 'q' });
    expect([f.matches('q1'), f.matches('q1'), f.matches('q1')]).toEqual([true, true, true]);
  });

  it('the schema rejects invalid patterns and unknown keys, with the path', () => {
    const bad = nameFilterSchema.safeParse({ include: '(' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['include']);
    expect(bad.error?.issues[0]?.message).toMatch(/not a valid regular expression/);
    expect(nameFilterSchema.safeParse({ exclude: '[' }).error?.issues[0]?.path).toEqual(['exclude']);
    expect(nameFilterSchema.safeParse({ inclde: 'x' }).success).toBe(false);
    expect(nameFilterSchema.parse({})).toEqual({});
  });
});
