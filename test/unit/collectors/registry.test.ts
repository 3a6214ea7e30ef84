import { describe, expect, it } from 'vitest';
import { collectorByName, COLLECTORS } from '../../../src/collectors/registry.js';

describe('collector registry', () => {
  it('finds every registered collector by its name', () => {
    for (const collector of COLLECTORS) expect(collectorByName(collector.name)).toBe(collector);
  });

  it('refuses a name it does not list, naming it (the configuration admits none such)', () => {
    expect(() => collectorByName('queue')).toThrow('no collector is named "queue"');
  });
});
