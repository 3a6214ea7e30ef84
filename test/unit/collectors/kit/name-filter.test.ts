import { describe, expect, it } from 'vitest';
import { NameFilter, nameFilterSchema } from '../../../../src/collectors/kit/name-filter.js';

const filter = (config: unknown) => new NameFilter(nameFilterSchema.parse(config));

describe('NameFilter', () => {
  it('keeps everything when there is no filter (absent, null, {} or [])', () => {
    for (const config of [undefined, null, {}, []]) {
      const f = filter(config);
      expect(f.exactNames).toBeUndefined();
      expect(f.matches('')).toBe(true);
      expect(f.matches('anything at all')).toBe(true);
    }
  });

  it('include is a search, not anchored; exclude wins over include', () => {
    const f = new NameFilter({ include: 'orders', exclude: '\\.tmp$' });
    expect(f.exactNames).toBeUndefined();
    expect(f.matches('eu.orders.new')).toBe(true);
    expect(f.matches('orders.tmp')).toBe(false);
    expect(f.matches('billing')).toBe(false);
    expect(new NameFilter({ include: '^orders\\.' }).matches('eu.orders.new')).toBe(false);
  });

  it('a list of names keeps exactly those names (no pattern: a dot is a dot)', () => {
    const f = filter(['orders', 'a.b', '/']);
    expect(f.exactNames).toEqual(['orders', 'a.b', '/']);
    expect(['orders', 'a.b', '/', 'orders2', 'axb', 'eu.orders'].map((n) => f.matches(n))).toEqual([true, true, true, false, false, false]);
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

  it('the schema says which two spellings it takes when given neither, and names a bad list entry', () => {
    expect(nameFilterSchema.safeParse('prod').error?.issues[0]?.message).toBe(
      'expected a list of names (exact matches) or {include, exclude} (regular expressions)',
    );
    const badEntry = nameFilterSchema.safeParse(['ok', 3]);
    expect(badEntry.success).toBe(false);
    expect(badEntry.error?.issues[0]?.path).toEqual([1]);
  });
});
