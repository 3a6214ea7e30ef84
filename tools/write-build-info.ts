import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';

/**
 * Part of `npm run build`: records where the build came from in dist/build-info.json, for
 * `--version` and rabbitmq_exporter_build_info. Revision and branch from git when the build runs
 * in a checkout, else from $REVISION and $BRANCH (a container build has no .git: pass
 * --build-arg REVISION=... --build-arg BRANCH=...), else "unknown"; the build's user@host and time.
 */
function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function user(): string {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return `unknown@${hostname()}`;
  }
}

/** The exporter-toolkit's form: 20261124-19:10:05 (UTC). */
function buildDate(now: Date): string {
  const iso = now.toISOString();
  return `${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19)}`;
}

const info = {
  revision: git(['rev-parse', '--short=12', 'HEAD']) ?? (process.env.REVISION?.trim() || 'unknown'),
  branch: git(['rev-parse', '--abbrev-ref', 'HEAD']) ?? (process.env.BRANCH?.trim() || 'unknown'),
  buildUser: user(),
  buildDate: buildDate(new Date()),
};
const target = new URL('../build-info.json', import.meta.url);
const compiled = new URL('../.tsbuildinfo', import.meta.url);

/** An incremental build that compiled nothing keeps the date of the build that did, at the same revision. */
function unchanged(): boolean {
  if (!existsSync(target) || !existsSync(compiled) || statSync(compiled).mtimeMs > statSync(target).mtimeMs) return false;
  try {
    const before = JSON.parse(readFileSync(target, 'utf8')) as Partial<typeof info>;
    return before.revision === info.revision && before.branch === info.branch && before.buildUser === info.buildUser;
  } catch {
    return false;
  }
}

if (!unchanged()) {
  // Written whole, then renamed: a test run reading it meanwhile (the other Node's) never sees half a file.
  const partial = new URL(`../build-info.json.${process.pid}`, import.meta.url);
  writeFileSync(partial, `${JSON.stringify(info, null, 2)}\n`);
  renameSync(partial, target);
}
