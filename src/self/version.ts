import { readFileSync } from 'node:fs';

/** The package version, read once from package.json (three levels above dist/src/self, two above src/self). */
function readVersion(): string {
  for (const rel of ['../../../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'rabbitmq-exporter' && pkg.version) return pkg.version;
    } catch {
      /* try the next location */
    }
  }
  return '0.0.0-unknown';
}

export const VERSION = readVersion();

/** The source revision recorded by `npm run build` in dist/revision (see tools/write-revision.ts). */
function readRevision(): string {
  try {
    return readFileSync(new URL('../../revision', import.meta.url), 'utf8').trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

export const REVISION = readRevision();
