// Issue 24, item 3: with 10,000 targets a 404 for an unknown /probe?target= listed every name.
import { expect, it } from 'vitest';
import { knownTargets, LISTED_TARGETS } from '../../../src/server/unknown-target.js';

it('lists a few targets whole', () => {
  expect(knownTargets(['orders', 'billing'], 'shipping')).toBe('configured targets: orders, billing');
  expect(knownTargets([], 'x')).toBe('no target configured');
});

it('counts many targets and names the closest by their beginning, in a body that does not grow with the fleet', () => {
  const names = Array.from({ length: 10_000 }, (_, i) => `cluster-${i}`);
  const hint = knownTargets(names, 'cluster-99999');
  expect(hint).toBe('10000 targets configured; closest names: "cluster-9999", "cluster-999", "cluster-9990"; the landing page / lists them');
  expect(knownTargets(names, 'zzz')).toBe('10000 targets configured; the landing page / lists them');
  expect(knownTargets(names.slice(0, LISTED_TARGETS + 1), 'c').length).toBeLessThan(200);
});
