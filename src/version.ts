import { readFileSync } from 'node:fs';

/** The package version, read once from package.json (two levels above dist/src or src). */
function readVersion(): string {
  for (const rel of ['../../package.json', '../package.json']) {
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
