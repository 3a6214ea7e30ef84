import { describe, expect, it } from 'vitest';
import { patternProblem } from '../../../../src/collectors/kit/safe-pattern.js';

describe('patternProblem: configured regular expressions that would let a crafted name stall the exporter', () => {
  it.each([
    ['^(a+)+$', 'exponential'],
    ['(a|a)*', 'exponential'],
    ['(a*)*b', 'exponential'],
    ['^((ab)*c)+$', 'exponential'],
    ['(?:x+y?)+z', 'exponential'],
    ['(?<word>\\w+)\\k<word>', 'back-reference'],
    ['(a)\\1', 'back-reference'],
    ['.*a.*b.*c.*d', '4 unbounded repeats'],
    ['(x{2,})*', 'exponential'],
    ['[', 'not a valid regular expression'],
  ])('refuses %s', (pattern, why) => {
    expect(patternProblem(pattern)).toContain(why);
  });

  it.each(['^orders\\.', '\\.tmp$', '^(orders|billing)\\.', '^amq\\.gen-[A-Za-z0-9_-]+$', '^[\\w.]+\\.v[0-9]+$', 'a{2}b{1,2}', '(ab){3}', '^(?:dlx|retry)-.*$', '[(|*+)]+', '\\(a+\\)+', '^q\\d{1,5}$'])('accepts %s', (pattern) => {
    expect(patternProblem(pattern)).toBeUndefined();
  });

});
