// The build is incremental (tsconfig.build.json, `tsc -b`): once built, `npm run demo`, `npm test`,
// the docs and the benches, which all build first, compile nothing again; the output of a deleted
// source goes (tools/prune-dist.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/fixtures.js';

const run = (command: string, args: string[]) => {
  const result = spawnSync(command, args, { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
};

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

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

  it('removes the output of a source that is gone, with the folder it leaves empty, and nothing else', () => {
    // A tree of its own: the repository's dist/ is in use by other test runs.
    const root = mkdtempSync(join(tmpdir(), 'rmqexp-prune-'));
    dirs.push(root);
    const file = (path: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), '');
    };
    for (const path of ['src/kept.ts', 'dist/src/kept.js', 'dist/src/kept.js.map', 'dist/src/gone.js', 'dist/src/old/gone.js', 'dist/src/old/gone.js.map', 'dist/build-info.json']) file(path);
    const pruned = run(process.execPath, ['dist/tools/prune-dist.js', root]);
    expect(pruned.status, pruned.output).toBe(0);
    expect(pruned.output).toContain('removed 3 output file(s) whose source is gone');
    expect(['dist/src/kept.js', 'dist/src/kept.js.map', 'dist/src/gone.js', 'dist/src/old', 'dist/build-info.json'].map((p) => existsSync(join(root, p)))).toEqual([true, true, false, false, true]);
  });
});
