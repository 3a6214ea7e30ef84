import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { configSchema } from '../../../src/config/schema.js';

const noFlags = { help: false, version: false };

describe('config.example.yaml', () => {
  it('loads, and documents exactly the defaults', () => {
    const example = loadConfig({ ...noFlags, config: 'config.example.yaml' }, {});
    const defaults = loadConfig(noFlags, {});
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
    const shape = configSchema().shape;
    for (const section of ['web', 'log', 'poll', 'target'] as const) {
      const keys = Object.keys((shape[section].unwrap() as unknown as { shape: Record<string, unknown> }).shape);
      const body = new RegExp(`^${section}:\\n((?:  .*\\n|\\n)*)`, 'm').exec(text)?.[1] ?? '';
      for (const key of keys) expect(body, `${section}.${key}`).toMatch(new RegExp(`^  #? ?${key}:`, 'm'));
    }
  });

  it('mentions every collector and every option of each', () => {
    const text = readFileSync('config.example.yaml', 'utf8');
    const defaults = loadConfig(noFlags, {});
    for (const collector of defaults.collectors) {
      expect(text, `collector ${collector.name}`).toMatch(new RegExp(`^  ${collector.name}:`, 'm'));
      for (const option of Object.keys(collector.options)) {
        expect(text, `collectors.${collector.name}.${option}`).toMatch(new RegExp(`^ {4}${option}:`, 'm'));
      }
    }
  });
});

describe('Dockerfile (checked statically: no Docker engine on the build machines)', () => {
  const lines = readFileSync('Dockerfile', 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const instructions = lines.filter((l) => /^[A-Z]+\s/.test(l));

  it('is multi-stage and runs as a non-root user', () => {
    expect(instructions.filter((l) => l.startsWith('FROM ')).length).toBeGreaterThanOrEqual(2);
    const lastFrom = instructions.map((l) => l.startsWith('FROM ')).lastIndexOf(true);
    const user = instructions.slice(lastFrom).find((l) => l.startsWith('USER '));
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER\s+(root|0)(\s|:|$)/);
  });

  it('exposes 9419, checks /-/healthy, and starts the built exporter', () => {
    expect(instructions).toContain('EXPOSE 9419');
    expect(lines.join('\n')).toMatch(/HEALTHCHECK[\s\S]*\/-\/healthy/);
    expect(instructions.find((l) => l.startsWith('ENTRYPOINT'))).toContain('dist/src/main.js');
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin['rabbitmq-exporter']).toBe('dist/src/main.js');
  });

  it('copies only files that exist in the repository', () => {
    for (const line of instructions.filter((l) => l.startsWith('COPY ') && !l.includes('--from='))) {
      const parts = line.split(/\s+/).slice(1, -1);
      for (const source of parts) expect(existsSync(source), `${line}: ${source}`).toBe(true);
    }
  });
});
