import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { configSchema } from '../../../src/config/schema.js';

const noFlags = {};

describe('config.example.yaml', () => {
  it('loads, and documents exactly the defaults', () => {
    const example = loadConfig({ ...noFlags, config: 'config.example.yaml' }, {}, COLLECTORS);
    const defaults = loadConfig(noFlags, {}, COLLECTORS);
    // Only where the password came from differs: the example spells out the default one.
    const comparable = (c: typeof example) => ({
      ...c,
      configFile: undefined,
      target: { ...c.target, passwordSource: undefined },
      targets: c.targets.map((setup) => ({ ...setup, target: { ...setup.target, passwordSource: undefined } })),
    });
    expect(comparable(example)).toEqual(comparable(defaults));
  });

  it('mentions every key of web, log, poll and target', () => {
    const text = readFileSync('config.example.yaml', 'utf8');
    const shape = configSchema(COLLECTORS).shape;
    for (const section of ['web', 'log', 'poll', 'target'] as const) {
      const keys = Object.keys((shape[section].unwrap() as unknown as { shape: Record<string, unknown> }).shape);
      const body = new RegExp(`^${section}:\\n((?:  .*\\n|\\n)*)`, 'm').exec(text)?.[1] ?? '';
      for (const key of keys) expect(body, `${section}.${key}`).toMatch(new RegExp(`^  #? ?${key}:`, 'm'));
    }
  });

  it('mentions every collector and every option of each', () => {
    const text = readFileSync('config.example.yaml', 'utf8');
    const defaults = loadConfig(noFlags, {}, COLLECTORS);
    for (const collector of defaults.collectors) {
      expect(text, `collector ${collector.name}`).toMatch(new RegExp(`^  ${collector.name}:`, 'm'));
      for (const option of Object.keys(collector.options)) {
        expect(text, `collectors.${collector.name}.${option}`).toMatch(new RegExp(`^ {4}${option}:`, 'm'));
      }
    }
  });
});
