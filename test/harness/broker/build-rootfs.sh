#!/usr/bin/env bash
# Builds (once) a minimal Debian root file system holding rabbitmq-server, for the
# private RabbitMQ 4.x nodes of the broker suite (see broker.ts and versions.ts).
#
#   build-rootfs.sh SUITE        e.g. trixie (RabbitMQ 4.0.x) or sid (4.3.x, moves)
#
# Result: $BROKER_ROOTFS_CACHE/SUITE (default /var/cache/rabbitmq-exporter-tests/SUITE),
# marked complete by SUITE/.rabbitmq-version (the installed rabbitmq-server version).
# A complete root file system is reused; BROKER_ROOTFS_REBUILD=1 (or a list of suites,
# e.g. BROKER_ROOTFS_REBUILD=sid) rebuilds it. The mirror is the Debian archive the
# host's own apt sources use (BROKER_ROOTFS_MIRROR overrides).
#
# Concurrency: nodes running from a root file system hold a shared flock on
# SUITE.lock for their whole life; this script takes it exclusively, so it never
# replaces a root file system under a running node, and two builds never race.
# It builds into SUITE.build-PID and renames only when complete.
#
# Every failure prints "build-rootfs SUITE: step <name> failed: ..." and exits 1.
set -euo pipefail

suite="${1:-}"
cache="${BROKER_ROOTFS_CACHE:-/var/cache/rabbitmq-exporter-tests}"
step="arguments"
fail() { printf 'build-rootfs %s: step %s failed: %s\n' "${suite:-?}" "$step" "$*" >&2; exit 1; }

[ -n "$suite" ] || fail "usage: build-rootfs.sh SUITE"
case "$suite" in *[!a-z0-9-]*) fail "unexpected suite name '$suite'" ;; esac
root="$cache/$suite"

step="check root"
[ "$(id -u)" -eq 0 ] || fail "debootstrap and chroot need root (running as $(id -un))"

wants_rebuild() {
  local r="${BROKER_ROOTFS_REBUILD:-}"
  case ",$r," in ",1,"|",true,"|",all,"|*",$suite,"*) return 0 ;; esac
  return 1
}

step="lock"
mkdir -p "$cache" || fail "cannot create $cache"
exec 8>"$root.lock"
if ! flock -x -w 900 8; then
  fail "$root.lock is held by running nodes or another build for 15 min"
fi

if [ -f "$root/.rabbitmq-version" ] && ! wants_rebuild; then
  echo "build-rootfs $suite: reusing $root (rabbitmq-server $(cat "$root/.rabbitmq-version"))"
  exit 0
fi

step="find debootstrap"
command -v debootstrap >/dev/null 2>&1 || fail "debootstrap is not installed (apt-get install debootstrap)"

step="find mirror"
mirror="${BROKER_ROOTFS_MIRROR:-}"
if [ -z "$mirror" ]; then
  # deb822 sources first (URIs: lines), then one-line sources (deb URI SUITE ...); skip security.
  mirror="$( { grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources /dev/null | tr ' ' '\n' | grep -E '^https?://' ;
               grep -hsE '^deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list /dev/null |
                 sed -E 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/' ; } |
             grep -v -- '-security' | grep -E '^https?://' | head -n1 || true)"
fi
[ -n "$mirror" ] || fail "no Debian mirror found in /etc/apt/sources.list{,.d} (set BROKER_ROOTFS_MIRROR)"

build="$root.build-$$"
log="$cache/$suite.build.log"
cleanup() { rm -rf --one-file-system "$build" 2>/dev/null || true; }
trap cleanup EXIT
rm -rf --one-file-system "$build"

step="debootstrap"
echo "build-rootfs $suite: debootstrap --variant=minbase --include=rabbitmq-server $suite from $mirror (log: $log)"
t0=$(date +%s)
# No service may start inside the new root (postinst scripts call invoke-rc.d).
if ! debootstrap --variant=minbase --include=rabbitmq-server "$suite" "$build" "$mirror" >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  fail "debootstrap $suite $build $mirror (see $log)"
fi

step="configure"
# Without the host's /etc/hosts the node fails with epmd_error,"localhost",nxdomain.
cp /etc/hosts "$build/etc/hosts" || fail "copy /etc/hosts"
[ -x "$build/usr/lib/rabbitmq/bin/rabbitmq-server" ] || fail "no /usr/lib/rabbitmq/bin/rabbitmq-server in $build"
ls "$build"/usr/lib/erlang/erts-*/bin/epmd >/dev/null 2>&1 || fail "no epmd in $build/usr/lib/erlang/erts-*/bin"
# Processes a postinst may have left running inside the new root (none expected).
for p in /proc/[0-9]*; do
  if [ "$(readlink "$p/root" 2>/dev/null)" = "$build" ]; then kill -KILL "${p#/proc/}" 2>/dev/null || true; fi
done
version="$(chroot "$build" dpkg-query -W -f='${Version}' rabbitmq-server)" || fail "dpkg-query rabbitmq-server in $build"
erlang="$(chroot "$build" dpkg-query -W -f='${Version}' erlang-base)" || fail "dpkg-query erlang-base in $build"
printf '%s\n' "$erlang" >"$build/.erlang-version"
printf '%s\n' "$version" >"$build/.rabbitmq-version"

step="install"
if [ -e "$root" ]; then rm -rf --one-file-system "$root" || fail "remove old $root"; fi
mv "$build" "$root" || fail "rename $build to $root"
trap - EXIT
echo "build-rootfs $suite: rabbitmq-server $version (Erlang $erlang) in $root after $(( $(date +%s) - t0 )) s"
