// What the configuration loader's tests (this folder) share: the testdata files and a load with
// flags and an environment.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { CliFlags } from '../../../../src/config/args.js';
import { ConfigError } from '../../../../src/config/config-error.js';
import { COLLECTORS } from '../../../../src/collectors/registry.js';
import { loadConfig } from '../../../../src/config/load-config.js';
import type { ExporterConfig } from '../../../../src/config/exporter-config.js';
import { REPO_ROOT } from '../../../support/fixtures.js';

// Paths inside the testdata files (password_file, tls.*) are relative to the repository root,
// which is where vitest runs; the config file paths below are relative to it as well.
export const TESTDATA = 'test/unit/config/testdata';
export const td = (name: string) => `${TESTDATA}/${name}`;

export function flags(extra: Partial<CliFlags> = {}): CliFlags {
  return { help: false, version: false, ...extra };
}

export function load(file: string | undefined, env: Record<string, string | undefined> = {}, extra: Partial<CliFlags> = {}): ExporterConfig {
  return loadConfig(flags({ ...(file ? { config: file } : {}), ...extra }), env, COLLECTORS);
}

export function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, but nothing was thrown');
}

export function collector(config: ExporterConfig, name: string) {
  const found = config.collectors.find((c) => c.name === name);
  if (!found) throw new Error(`no collector ${name} in the config`);
  return found;
}

/**
 * A temporary directory for the tests of the file that calls this (made before them, removed
 * after them); also checks that they run from the repository root, as the testdata paths assume.
 */
export function fileTempDir(): () => string {
  let dir: string | undefined;
  beforeAll(() => {
    expect(process.cwd().replace(/\/$/, '')).toBe(REPO_ROOT.replace(/\/$/, ''));
    dir = mkdtempSync(join(tmpdir(), 'rmq-exporter-config-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!dir) throw new Error('the temporary directory is made before the tests run, not while they are collected');
    return dir;
  };
}
