// The storefront (storefront/) is a separate npm workspace: it shares tooling with the
// exporter but no code, and none of its files may reach the exporter's image or npm package.

import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const STOREFRONT = join(ROOT, 'storefront');
// Also catches storefront-data/, the storefront's db folder when it runs from the root.
const isStorefrontPath = (path: string) => /storefront/i.test(path);

/** Every file under `dir` (relative to ROOT, `/`-separated), skipping folders for which `skip` is true. */
function walk(dir: string, skip: (rel: string) => boolean = () => false): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = relative(ROOT, join(dir, entry.name)).split('\\').join('/');
    if (skip(rel)) continue;
    if (entry.isDirectory()) out.push(...walk(join(dir, entry.name), skip));
    else out.push(rel);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Imports

const IMPORT = /\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g;

/** [file, specifier, resolved target (relative imports only)] for every import in the given files. */
function importsOf(files: string[]): { file: string; specifier: string; target: string | undefined }[] {
  return files.flatMap((file) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(IMPORT)].map((m) => {
      const specifier = m[1] as string;
      const target = specifier.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), specifier)).split('\\').join('/') : undefined;
      return { file, specifier, target };
    }),
  );
}

const SOURCE = /\.(ts|mts|mjs|js)$/;
const notBuilt = (rel: string) => /(^|\/)(node_modules|dist|\.git)$/.test(rel);

describe('the storefront shares no code with the exporter', () => {
  it('nothing under storefront/ imports from outside storefront/, nor the exporter package', () => {
    const files = walk(STOREFRONT, notBuilt).filter((f) => SOURCE.test(f));
    expect(files).toContain('storefront/src/app.ts');
    const escaping = importsOf(files).filter(
      ({ specifier, target }) => (target !== undefined && !target.startsWith('storefront/')) || /^rabbitmq-exporter(\/|$)/.test(specifier),
    );
    expect(escaping).toEqual([]);
  });

  it("nothing in the exporter's src/, test/, bench/ or root configs imports from storefront/", () => {
    const files = [
      ...['src', 'test', 'bench'].flatMap((d) => walk(join(ROOT, d), notBuilt)),
      ...readdirSync(ROOT).filter((f) => SOURCE.test(f)),
    ].filter((f) => SOURCE.test(f));
    expect(files).toContain('src/main.ts');
    const reaching = importsOf(files).filter(
      ({ specifier, target }) => (target?.startsWith('storefront/')) || /^storefront(\/|$)/.test(specifier),
    );
    expect(reaching).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// Docker build context and COPY steps (checked statically: no Docker engine on the build machines)

/**
 * The files Docker would send as build context, per .dockerignore. Supports the syntax this
 * repository uses (names and `*`/`?` globs, matched from the context root as Docker does,
 * a match excluding everything below it) and refuses the rest rather than guess.
 */
function buildContext(dockerignore: string): string[] {
  const patterns = dockerignore
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((pattern) => {
      if (/^!|\*\*|[[\]\\]/.test(pattern)) throw new Error(`.dockerignore: pattern ${JSON.stringify(pattern)} is not supported by this check`);
      return pattern
        .replace(/^\/+|\/+$/g, '')
        .split('/')
        .map((seg) => new RegExp(`^${seg.replace(/[.+^${}()|]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`));
    });
  const ignored = (rel: string) => {
    const segs = rel.split('/');
    return patterns.some((p) => p.length <= segs.length && p.every((re, i) => re.test(segs[i] as string)));
  };
  return walk(ROOT, ignored).filter((f) => !ignored(f));
}

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
/** Sources of COPY steps that read the build context (not `--from=` another stage). */
const copySources = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => /^COPY\s/i.test(l) && !/--from=/.test(l))
  .flatMap((l) => l.split(/\s+/).slice(1, -1).filter((a) => !a.startsWith('--')))
  .map((s) => s.replace(/^\.\/|\/$/g, '') || '.');

describe("the exporter's image holds no storefront file", () => {
  const dockerignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8');

  it('the build context leaves storefront/ out', () => {
    const context = buildContext(dockerignore);
    expect(context).toContain('src/main.ts');
    expect(context.filter(isStorefrontPath)).toEqual([]);
  });

  it('the context check does see storefront files when .dockerignore lets them in', () => {
    const without = dockerignore
      .split('\n')
      .filter((l) => l.trim() !== 'storefront')
      .join('\n');
    expect(buildContext(without)).toContain('storefront/src/app.ts');
  });

  it('no COPY step names or covers a storefront file', () => {
    expect(copySources).toContain('src');
    expect(copySources.filter(isStorefrontPath)).toEqual([]);
    const covered = walk(ROOT, notBuilt).filter((f) => copySources.some((s) => s === '.' || f === s || f.startsWith(`${s}/`)));
    expect(covered).toContain('src/main.ts');
    expect(covered.filter(isStorefrontPath)).toEqual([]);
  });

  it('builds with --ignore-scripts (prepare would build the absent workspace), which no production dependency needs', () => {
    expect(dockerfile).toContain('npm ci --ignore-scripts');
    expect(dockerfile).toContain('npm run build:exporter');
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }>;
    };
    const withScripts = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript === true && p.dev !== true)
      .map(([name]) => name);
    expect(withScripts).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// npm package

describe("the exporter's npm package holds no storefront file", () => {
  // Spawns npm, which alone takes seconds on a loaded machine; the assertion is about the file list, not speed.
  it('npm pack --dry-run lists the built exporter and nothing of the storefront', { timeout: 60_000 }, async () => {
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, maxBuffer: 16 << 20 });
    const [pack] = JSON.parse(stdout) as { files: { path: string }[] }[];
    const paths = (pack?.files ?? []).map((f) => f.path);
    expect(paths, 'dist/src/main.js missing: run `npm run build` first').toContain('dist/src/main.js');
    expect(paths).toContain('package.json');
    expect(paths.filter(isStorefrontPath)).toEqual([]);
  });
});
