import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

/**
 * Part of `npm run build`: records the source revision in dist/revision for
 * rabbitmq_exporter_build_info. From git when the build runs in a checkout, else from $REVISION
 * (a container build has no .git: pass --build-arg REVISION=...), else "unknown".
 */
function revision(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim();
  } catch {
    return process.env.REVISION?.trim() || 'unknown';
  }
}

writeFileSync(new URL('../../revision', import.meta.url), `${revision()}\n`);
