// Loads a configuration from flags, environment and (optionally) a YAML text written to a temporary file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { parseFlags } from '../../../src/config/args.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { ConfigError } from '../../../src/config/config-error.js';
import type { ExporterConfig } from '../../../src/config/exporter-config.js';
import { loadConfig } from '../../../src/config/load-config.js';

/** Call at the top of a test file: a directory for its YAML files, removed afterwards. */
export function configLoader(prefix: string) {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let files = 0;
  function load(args: string[], env: Record<string, string> = {}, yaml?: string): ExporterConfig {
    const extra: string[] = [];
    if (yaml !== undefined) {
      const file = join(dir, `config-${++files}.yaml`);
      writeFileSync(file, yaml);
      extra.push('--config', file);
    }
    return loadConfig(parseFlags([...args, ...extra]), env, COLLECTORS);
  }

  /** The ConfigError's message; fails the test when the configuration loads. */
  function problem(args: string[], env: Record<string, string> = {}, yaml?: string): string {
    try {
      load(args, env, yaml);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('expected a ConfigError, but the configuration loaded');
  }

  return { load, problem };
}
