// The built exporter's start-up with a configuration it cannot use: exit code 2 and a message
// naming the setting, never a secret (test/unit/config/load-config/ checks the messages themselves).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/fixtures.js';

// Paths inside the testdata files are relative to the repository root, where vitest runs.
const td = (name: string) => `test/unit/config/testdata/${name}`;

// Each test starts a whole Node process loading the exporter's modules: on a machine the rest of
// the suite keeps busy, more than vitest's default 5 s (hash-password.test.ts timed out so).
describe('the built binary', { timeout: 60_000 }, () => {
  const main = join(REPO_ROOT, 'dist/src/main.js');
  beforeAll(() => {
    if (!existsSync(main)) {
      const built = spawnSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: REPO_ROOT, encoding: 'utf8' });
      if (built.status !== 0) throw new Error(`tsc failed: ${built.stdout}${built.stderr}`);
    }
  }, 120_000);

  it('exits 2 and prints the message for a bad config file', () => {
    const file = td('bad-unknown-nested-key.yaml');
    const result = spawnSync(process.execPath, ['dist/src/main.js', '--config', file], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`rabbitmq-exporter: invalid configuration:`);
    expect(result.stderr).toContain(`config file ${file}: key "poll.intervall": unknown key (did you mean "interval"?)`);
    expect(result.stdout).toBe('');
  });

  it.each([
    ['http://monitor:pw%zz-s3cr3t@broker.example:15672', 'not valid percent-encoding'],
    ['http://monitor:12/s3cr3t@broker.example', 'has an "@" after the host'],
  ])('exits 2 for RABBITMQ_URL=%j, naming the variable and key, never the secret', (url, message) => {
    const result = spawnSync(process.execPath, ['dist/src/main.js'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? '', RABBITMQ_URL: url },
    });
    expect(result.stderr).toContain('environment variable RABBITMQ_URL: key "target.url": ');
    expect(result.stderr).toContain(message);
    expect(result.stderr + result.stdout).not.toContain('s3cr3t');
    expect(result.stdout).toBe('');
    expect(result.status).toBe(2);
  });

  it('exits 2 for an unknown flag, with the usage text', () => {
    const result = spawnSync(process.execPath, ['dist/src/main.js', '--pol.interval', '5s'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('rabbitmq-exporter: command line:');
    expect(result.stderr).toContain('--pol.interval');
    expect(result.stderr).toContain('Usage: rabbitmq-exporter [flags]');
  });
});
