import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Part of `npm run build`: an incremental compile (tsc -b) leaves the output of a deleted source
 * behind, so each .js, .js.map and .d.ts under dist/{src,tools,demo,test} whose .ts is gone is
 * removed, and a folder left empty. `node dist/tools/prune-dist.js [ROOT]`: the repository's dist/,
 * or ROOT's.
 */
const ROOT = process.argv[2] ?? fileURLToPath(new URL('../..', import.meta.url));
const DIST = join(ROOT, 'dist');
const OUTPUT = /\.(js|js\.map|d\.ts)$/;

function prune(folder: string): number {
  if (!existsSync(folder)) return 0;
  let removed = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      removed += prune(path);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
      continue;
    }
    if (!OUTPUT.test(entry.name)) continue;
    const source = join(ROOT, relative(DIST, path)).replace(OUTPUT, '.ts');
    if (!existsSync(source)) {
      rmSync(path);
      removed++;
    }
  }
  return removed;
}

const removed = ['src', 'tools', 'demo', 'test'].reduce((sum, top) => sum + prune(join(DIST, top)), 0);
if (removed > 0) process.stdout.write(`prune-dist: removed ${removed} output file(s) whose source is gone\n`);
