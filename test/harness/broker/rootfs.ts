/**
 * Root file systems of Debian suites holding a newer rabbitmq-server (see build-rootfs.sh), and
 * the launcher that runs a command of one in a chroot.
 *
 * The launcher (`inroot.sh`, written into the node's directory) runs each command in its own
 * mount namespace (`unshare --mount`): /proc and the host's temp directory are mounted there
 * only, so nothing is left mounted when the node goes away, and two runs never unmount each
 * other's /proc. The node's directory keeps the same path inside and outside the chroot (the
 * host's temp directory is bound at the same place). Every process started through it holds a
 * shared flock on the root file system's lock, so a rebuild waits for running nodes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BUILD_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'build-rootfs.sh');

export function rootfsCache(): string {
  return process.env.BROKER_ROOTFS_CACHE || '/var/cache/rabbitmq-exporter-tests';
}

export function rootfsPath(suite: string): string {
  return path.join(rootfsCache(), suite);
}

/** rabbitmq-server version installed in a complete root file system, or undefined when there is none. */
export function rootfsRabbitVersion(suite: string): string | undefined {
  try {
    return fs.readFileSync(path.join(rootfsPath(suite), '.rabbitmq-version'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

export function rootfsErlangVersion(suite: string): string | undefined {
  try {
    return fs.readFileSync(path.join(rootfsPath(suite), '.erlang-version'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Build the root file system of `suite` unless a complete one is cached (or rebuild it when
 * BROKER_ROOTFS_REBUILD names it and `allowRebuild`). Throws build-rootfs.sh's error, which
 * names the step that failed.
 */
export function ensureRootfs(suite: string, opts: { allowRebuild?: boolean } = {}): string {
  const env = { ...process.env };
  if (!opts.allowRebuild) delete env.BROKER_ROOTFS_REBUILD;
  const rebuildAsked = !!env.BROKER_ROOTFS_REBUILD;
  if (rootfsRabbitVersion(suite) && !rebuildAsked) return rootfsPath(suite);
  const r = spawnSync('bash', [BUILD_SCRIPT, suite], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 1_800_000 });
  if (r.status !== 0) {
    const why = r.error ? r.error.message : (r.stderr || r.stdout).trim() || `exit ${r.status ?? r.signal}`;
    throw new Error(`cannot provide the ${suite} root file system for RabbitMQ: ${why}`);
  }
  process.stderr.write(r.stdout);
  return rootfsPath(suite);
}

/** Why nodes of `suite` cannot run here, or undefined when they can. */
export function rootfsUnavailableReason(suite: string): string | undefined {
  if (process.getuid?.() !== 0) return `RabbitMQ from Debian ${suite} runs in a chroot, which needs root`;
  for (const tool of ['/usr/bin/unshare', '/usr/bin/flock', '/usr/sbin/chroot']) {
    if (!fs.existsSync(tool)) return `${tool} is missing (util-linux / coreutils)`;
  }
  if (!rootfsRabbitVersion(suite) && spawnSync('sh', ['-c', 'command -v debootstrap'], { stdio: 'ignore' }).status !== 0) {
    return `no ${suite} root file system in ${rootfsCache()} and debootstrap is not installed (apt-get install debootstrap; .ci/run does)`;
  }
  return undefined;
}

/** Host path of the epmd binary inside a root file system. */
export function epmdInRootfs(rootfs: string): string {
  const erlang = path.join(rootfs, 'usr/lib/erlang');
  const erts = fs.readdirSync(erlang).find((d) => d.startsWith('erts-') && fs.existsSync(path.join(erlang, d, 'bin/epmd')));
  if (!erts) throw new Error(`no epmd under ${erlang}/erts-*/bin`);
  return path.join('/usr/lib/erlang', erts, 'bin/epmd');
}

const LAUNCHER = `#!/bin/sh
# usage: inroot.sh COMMAND ARGS... — runs COMMAND (a path inside the root file system) in a
# chroot of ROOTFS, in a private mount namespace holding /proc and the host's temp directory.
# Written by test/harness/broker/rootfs.ts.
ROOTFS=%ROOTFS%
TMPD=%TMPD%
exec /usr/bin/unshare --mount --propagation private -- /bin/sh -c '
  exec 9<"$0.lock" || { echo "inroot: cannot open $0.lock" >&2; exit 96; }
  /usr/bin/flock -s 9 || { echo "inroot: cannot lock $0.lock" >&2; exit 96; }
  mount -t proc proc "$0/proc" || { echo "inroot: mount proc on $0/proc failed" >&2; exit 97; }
  mount --bind "$1" "$0$1" || { echo "inroot: bind $1 on $0$1 failed" >&2; exit 97; }
  shift
  exec /usr/sbin/chroot "$0" "$@"' "$ROOTFS" "$TMPD" "$@"
`;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Write the launcher for `rootfs` into `dir`; returns its path. */
export function writeLauncher(dir: string, rootfs: string): string {
  const tmp = fs.realpathSync(os.tmpdir());
  fs.mkdirSync(path.join(rootfs, tmp), { recursive: true });
  const file = path.join(dir, 'inroot.sh');
  fs.writeFileSync(file, LAUNCHER.replace('%ROOTFS%', quote(rootfs)).replace('%TMPD%', quote(tmp)), { mode: 0o755 });
  return file;
}
