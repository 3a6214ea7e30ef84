// The layer check of `npm test` (npm run lint:deps, .dependency-cruiser.cjs) run on small trees:
// it passes the real one and fails an upward import, a type-only one included, and a cycle; the
// layers it enforces are the ones docs/architecture.md lists.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { cruise, type IConfiguration } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve('.');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const config = createRequire(import.meta.url)(CONFIG) as IConfiguration;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs the check on a tree of these files (path → text) under src/; its output and whether it passed.
 * In this process, with the project's rules: a dependency-cruiser process per case loaded TypeScript
 * anew each time, seconds apiece on a loaded machine.
 */
async function check(files: Record<string, string>): Promise<{ passed: boolean; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'rmqexp-layers-'));
  dirs.push(dir);
  const tsConfigFile = join(dir, 'tsconfig.json');
  writeFileSync(tsConfigFile, JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, 'src', path)), { recursive: true });
    writeFileSync(join(dir, 'src', path), text);
  }
  const options = { ...config.options, baseDir: dir, tsConfig: { fileName: tsConfigFile }, ruleSet: { forbidden: config.forbidden }, validate: true, outputType: 'err' as const };
  const result = await cruise(['src'], options, {}, { tsConfig: extractTSConfig(tsConfigFile) });
  return { passed: result.exitCode === 0, output: String(result.output) };
}

const base = {
  'target.ts': "export interface Target { name: string }\n",
  'model/exposition.ts': "export const TEXT = 'text/plain';\n",
  'server/app.ts': "import { TEXT } from '../model/exposition.js';\nexport const app = TEXT;\n",
};

describe('the layer check (npm run lint:deps)', () => {
  it('passes imports that go down', async () => {
    const result = await check(base);
    expect(result.output).toContain('no dependency violations found');
    expect(result.passed).toBe(true);
  });

  it('fails an import of a higher layer, a type-only one too', async () => {
    const result = await check({ ...base, 'server/app.ts': "import type { Target } from '../target.js';\nexport type Served = Target;\n" });
    expect(result.passed).toBe(false);
    expect(result.output).toContain('layer-server: src/server/app.ts → src/target.ts');
  });

  it('fails an import between two folders of one layer', async () => {
    const result = await check({ 'collectors/a.ts': "import { b } from '../config/b.js';\nexport const a = b;\n", 'config/b.ts': 'export const b = 1;\n' });
    expect(result.passed).toBe(false);
    expect(result.output).toContain('layer-collectors: src/collectors/a.ts → src/config/b.ts');
  });

  it('fails an import from a folder that no layer lists', async () => {
    const result = await check({ 'extra/a.ts': "import { b } from '../model/b.js';\nexport const a = b;\n", 'model/b.ts': 'export const b = 1;\n' });
    expect(result.passed).toBe(false);
    expect(result.output).toContain('layer-unlisted: src/extra/a.ts → src/model/b.ts');
  });

  it('fails a cycle within a folder', async () => {
    const result = await check({
      'config/a.ts': "import type { B } from './b.js';\nexport type A = B;\n",
      'config/b.ts': "import type { A } from './a.js';\nexport type B = A | 1;\n",
    });
    expect(result.passed).toBe(false);
    expect(result.output).toContain('no-circular');
  });
});

describe('docs/architecture.md', () => {
  it('lists the layers the check enforces', () => {
    const doc = readFileSync('docs/architecture.md', 'utf8');
    const documented = [...doc.matchAll(/^\| (\d+) \| (.+) \|$/gm)]
      .map(([, rank, cell]) => ({ rank: Number(rank), root: cell!.includes('`src/*.ts`'), folders: [...cell!.matchAll(/`([a-z]+)\/`/g)].map((m) => m[1]!) }))
      .sort((a, b) => a.rank - b.rank)
      .map(({ folders, root }) => (root ? ['(root)', ...folders] : folders));
    const config = readFileSync(CONFIG, 'utf8');
    const layers = JSON.parse(/const LAYERS = (\[[\s\S]*?\]);/.exec(config)![1]!.replace(/\/\/.*$/gm, '').replace(/'/g, '"').replace(/,(\s*\])/g, '$1')) as string[][];
    expect(documented).toEqual(layers);
  });
});
