// The build is incremental (tsconfig.build.json, `tsc -b`): once built, `npm run demo`, `npm test`,
// the docs and the benches, which all build first, compile nothing again; the output of a deleted
// source goes (tools/prune-dist.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/fixtures.js';

const run = (command: string, args: string[]) => {
  const result = spawnSync(command, args, { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
};

describe('the build', () => {
  it('compiles nothing when nothing changed since the last build', () => {
    const main = join(REPO_ROOT, 'dist/src/main.js');
    const demo = join(REPO_ROOT, 'dist/demo/main.js');
    const before = [statSync(main).mtimeMs, statSync(demo).mtimeMs];
    const built = run('npm', ['run', 'build:exporter']);
    expect(built.status, built.output).toBe(0);
    expect([statSync(main).mtimeMs, statSync(demo).mtimeMs]).toEqual(before);
    const dry = run('npx', ['tsc', '-b', 'tsconfig.build.json', '--dry']);
    expect(dry.output).toMatch(/Project '[^']*tsconfig\.build\.json' is up to date/);
  }, 120_000);

  it('removes the output of a source that is gone, and nothing else', () => {
    const folder = join(REPO_ROOT, 'dist/src/gone-in-this-test');
    mkdirSync(folder, { recursive: true });
    const stale = join(folder, 'deleted-source.js');
    writeFileSync(stale, '');
    writeFileSync(`${stale}.map`, '{}');
    const pruned = run(process.execPath, ['dist/tools/prune-dist.js']);
    expect(pruned.status, pruned.output).toBe(0);
    expect(pruned.output).toContain('removed 2 output file(s) whose source is gone');
    expect(existsSync(folder), 'the folder they were in, empty now').toBe(false);
    expect(existsSync(join(REPO_ROOT, 'dist/src/main.js'))).toBe(true);
  });
});
