import { readFileSync } from 'node:fs';

/** The package version, read once from package.json (three levels above dist/src/pipeline, two above src/pipeline). */
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

/** Where the build came from, recorded by `npm run build` in dist/build-info.json (tools/write-build-info.ts). */
export interface BuildInfo {
  revision: string;
  branch: string;
  buildUser: string;
  buildDate: string;
}

function readBuildInfo(): BuildInfo {
  const unknown: BuildInfo = { revision: 'unknown', branch: 'unknown', buildUser: 'unknown', buildDate: 'unknown' };
  try {
    const read = JSON.parse(readFileSync(new URL('../../build-info.json', import.meta.url), 'utf8')) as Partial<BuildInfo>;
    const text = (value: unknown, fallback: string) => (typeof value === 'string' && value !== '' ? value : fallback);
    return { revision: text(read.revision, unknown.revision), branch: text(read.branch, unknown.branch), buildUser: text(read.buildUser, unknown.buildUser), buildDate: text(read.buildDate, unknown.buildDate) };
  } catch {
    return unknown;
  }
}

export const BUILD_INFO = readBuildInfo();
export const REVISION = BUILD_INFO.revision;

/** `--version`, in the exporter-toolkit's layout. */
export function versionText(): string {
  const b = BUILD_INFO;
  return [
    `rabbitmq-exporter, version ${VERSION} (branch: ${b.branch}, revision: ${b.revision})`,
    `  build user:       ${b.buildUser}`,
    `  build date:       ${b.buildDate}`,
    `  node version:     ${process.version}`,
    `  platform:         ${process.platform}/${process.arch}`,
    '',
  ].join('\n');
}
