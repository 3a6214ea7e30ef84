/**
 * The RabbitMQ versions the broker suite runs on, and which of them a run selects.
 *
 *   3.10  the host's Debian 12 package (3.10.8, Erlang 25)
 *   4.0   Debian 13 "trixie" in a chroot (4.0.x, Erlang 27)
 *   4.3   Debian "sid" in a chroot (4.3.x on 2026-11-22; sid moves, the suite prints what it ran)
 *
 * BROKER_VERSIONS=3.10,4.3 selects some (default: all). vitest.config.ts makes one `broker-<v>`
 * project per selected version; each project's global setup starts a node of its version.
 */
export interface BrokerVersion {
  /** major.minor, as in BROKER_VERSIONS and the vitest project name. */
  name: string;
  /** Debian suite whose root file system runs the node; undefined for the host's package. */
  suite?: string;
}

export const BROKER_VERSIONS: readonly BrokerVersion[] = [{ name: '3.10' }, { name: '4.0', suite: 'trixie' }, { name: '4.3', suite: 'sid' }];

export function brokerVersion(name: string): BrokerVersion {
  const found = BROKER_VERSIONS.find((v) => v.name === name);
  if (!found) throw new Error(`unknown broker version '${name}' (known: ${BROKER_VERSIONS.map((v) => v.name).join(', ')})`);
  return found;
}

/** The versions named by BROKER_VERSIONS (comma or space separated), all of them when unset. */
export function selectedVersions(value = process.env.BROKER_VERSIONS): BrokerVersion[] {
  if (value === undefined || value.trim() === '' || value.trim() === 'all') return [...BROKER_VERSIONS];
  const names = value.split(/[\s,]+/).filter(Boolean);
  const unknown = names.filter((n) => !BROKER_VERSIONS.some((v) => v.name === n));
  if (unknown.length > 0) {
    throw new Error(`BROKER_VERSIONS=${value}: unknown version ${unknown.join(', ')} (known: ${BROKER_VERSIONS.map((v) => v.name).join(', ')})`);
  }
  return BROKER_VERSIONS.filter((v) => names.includes(v.name));
}

/** [major, minor, patch] of a version string such as '4.0.5' or '4.3.6-1'. */
export function versionParts(version: string): [number, number, number] {
  const [a = 0, b = 0, c = 0] = version.split(/[.+~-]/).map((p) => Number.parseInt(p, 10) || 0);
  return [a, b, c];
}

/** Is `version` at least `min` ('4.1', '3.13.0', ...)? */
export function atLeast(version: string, min: string): boolean {
  const v = versionParts(version);
  const m = versionParts(min);
  for (let i = 0; i < 3; i++) if (v[i] !== m[i]) return v[i]! > m[i]!;
  return true;
}
