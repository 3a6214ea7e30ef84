import { describe, expect, it } from 'vitest';
import { printedLabel, scalarLabel, stringLabel } from '../../../../src/collectors/kit/label-text.js';

describe('label text: one function per meaning', () => {
  const values = ['q', 5, true, null, undefined, ['a', 'b'], { k: 1 }];
  it('stringLabel keeps strings only', () => {
    expect(values.map(stringLabel)).toEqual(['q', '', '', '', '', '', '']);
  });
  it('scalarLabel prints numbers and booleans too', () => {
    expect(values.map(scalarLabel)).toEqual(['q', '5', 'true', '', '', '', '']);
  });
  it('printedLabel prints anything but absent and null', () => {
    expect(values.map(printedLabel)).toEqual(['q', '5', 'true', '', '', 'a,b', '[object Object]']);
  });
  it('printedLabel prints a table with toString or valueOf keys (JSON from the broker) without calling them', () => {
    const poisoned = JSON.parse('[{"toString": 1}, {"valueOf": "x", "toString": {}}, [null, "a", [1, 2]]]') as unknown[];
    expect(poisoned.map(printedLabel)).toEqual(['[object Object]', '[object Object]', ',a,1,2']);
    expect(printedLabel(poisoned)).toBe('[object Object],[object Object],,a,1,2');
    expect(() => String(poisoned[0])).toThrow();
  });
});
