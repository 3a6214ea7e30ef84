import { parseDocument } from 'yaml';
import { readConfigFile, readNow, type FileSource } from './config-files.js';
import { ConfigError } from './config-error.js';
import { SettingError } from '../profiles/profile-settings.js';
import { readProfileEnvironment, type ProfileVariables } from '../profiles/profiles.js';
import { closestKey } from './key-suggestion.js';

/** What the command line may set of the configuration (parsed in src/config/args.ts). */
export interface ConfigFlags {
  config?: string;
  /** `--web.listen-address`, once per address. */
  listenAddresses?: readonly string[];
  telemetryPath?: string;
  logLevel?: string;
  logFormat?: string;
  pollInterval?: string;
  shard?: string;
  totalShards?: string;
  naming?: string;
  /** `--collector.NAME` (true) and `--no-collector.NAME` (false). */
  collectors?: Readonly<Record<string, boolean>>;
}

export type Env = Record<string, string | undefined>;

/** The file's tree with environment and flags written into it, and which of them set what. */
export interface ConfigTree {
  raw: Record<string, unknown>;
  /** Dotted key → the flag or variable that set it. */
  sources: Map<string, string>;
  /** `sharding.*` keys the file itself set (their defaults are reported differently). */
  shardingInFile: Set<string>;
  /**
   * Each naming profile's variables that were read (chosen profile, no config file), left unread
   * because a config file wins (`ignored`), or left unread because the profile is off (`profileOff`).
   */
  profileVariables: ProfileVariables;
}

/**
 * The YAML file (none: an empty tree) with environment and flags written into it before
 * validation, so every value passes the same checks; messages then name where a bad value came from.
 */
export function readConfigTree(flags: ConfigFlags, env: Env, collectors: readonly string[] = [], files: FileSource = readNow): ConfigTree {
  const file = flags.config;
  const raw = file ? readYaml(file, files) : {};
  const sources = new Map<string, string>();
  const shardingInFile = new Set(Object.keys(mapping(raw.sharding) ?? {}).map((key) => `sharding.${key}`));
  const put = (path: string[], value: unknown, source: string) => {
    let node = raw as Record<string, unknown>;
    for (const key of path.slice(0, -1)) {
      if (node[key] === undefined || node[key] === null) node[key] = {};
      // A file value that is not a mapping stays, so validation reports it.
      if (typeof node[key] !== 'object' || Array.isArray(node[key])) return;
      node = node[key] as Record<string, unknown>;
    }
    node[path[path.length - 1] as string] = value;
    sources.set(path.join('.'), source);
  };
  const set = (path: string[], value: string | undefined, source: string, parse: (v: string) => unknown = (v) => v) => {
    if (value !== undefined) put(path, parse(value), source);
  };
  // The chosen naming profile's variables first: this exporter's own variables and flags go over them.
  const profileVariables = profileEnvironment(flags.naming ?? env.EXPORTER_NAMING ?? raw.naming, Boolean(file), {
    env,
    put,
    collectors,
    readSecret: (path, source) => readConfigFile(files, path, 'secret', source).toString('utf8'),
  });
  if (env.RABBITMQ_PASSWORD !== undefined && env.RABBITMQ_PASSWORD_FILE !== undefined) {
    throw new ConfigError('environment: set RABBITMQ_PASSWORD or RABBITMQ_PASSWORD_FILE, not both');
  }
  set(['target', 'url'], env.RABBITMQ_URL, 'environment variable RABBITMQ_URL');
  set(['target', 'username'], env.RABBITMQ_USERNAME, 'environment variable RABBITMQ_USERNAME');
  if (env.RABBITMQ_PASSWORD !== undefined || env.RABBITMQ_PASSWORD_FILE !== undefined) {
    const target = ((raw as Record<string, unknown>).target ?? {}) as Record<string, unknown>;
    if (target !== null && typeof target === 'object') {
      delete target.password;
      delete target.password_file;
    }
  }
  set(['target', 'password'], env.RABBITMQ_PASSWORD, 'environment variable RABBITMQ_PASSWORD');
  set(['target', 'password_file'], env.RABBITMQ_PASSWORD_FILE, 'environment variable RABBITMQ_PASSWORD_FILE');
  set(['naming'], env.EXPORTER_NAMING, 'environment variable EXPORTER_NAMING');
  const listen = flags.listenAddresses ?? [];
  // One flag sets the key as the file's single address would; several, a list whose entries each name the flag.
  if (listen.length === 1) put(['web', 'listen_address'], listen[0], 'flag --web.listen-address');
  if (listen.length > 1) {
    put(['web', 'listen_address'], [...listen], 'flag --web.listen-address');
    for (const i of listen.keys()) sources.set(`web.listen_address[${i}]`, 'flag --web.listen-address');
  }
  set(['naming'], flags.naming, 'flag --naming');
  set(['log', 'level'], flags.logLevel, 'flag --log.level');
  set(['log', 'format'], flags.logFormat, 'flag --log.format');
  set(['web', 'telemetry_path'], flags.telemetryPath, 'flag --web.telemetry-path');
  set(['poll', 'interval'], flags.pollInterval, 'flag --poll.interval');
  const integerOrText = (v: string) => (/^\s*-?\d+\s*$/.test(v) ? Number(v) : v);
  set(['sharding', 'shard'], flags.shard, 'flag --shard', integerOrText);
  set(['sharding', 'total_shards'], flags.totalShards, 'flag --total-shards', integerOrText);
  for (const [name, enabled] of Object.entries(flags.collectors ?? {})) {
    const flag = `flag --${enabled ? '' : 'no-'}collector.${name}`;
    if (!collectors.includes(name)) {
      const meant = closestKey(name, collectors);
      throw new ConfigError(`${flag}: no collector named "${name}"${meant ? ` (did you mean "${meant}"?)` : ''}; the collectors: ${collectors.join(', ')}`);
    }
    put(['collectors', name, 'enabled'], enabled, flag);
  }
  return { raw, sources, shardingInFile, profileVariables };
}

/** readProfileEnvironment, a refused value reported as any bad configuration is. */
function profileEnvironment(...args: Parameters<typeof readProfileEnvironment>): ProfileVariables {
  try {
    return readProfileEnvironment(...args);
  } catch (error) {
    if (error instanceof SettingError) throw new ConfigError(error.message);
    throw error;
  }
}

export function mapping(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function readYaml(file: string, files: FileSource): Record<string, unknown> {
  const text = readConfigFile(files, file, 'config', 'config file', (why) => `config file ${file}: cannot be read: ${why} (flag --config.file)`).toString('utf8');
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const duplicate = first.code === 'DUPLICATE_KEY' ? duplicateKeyPath(text, first.linePos?.[0]?.line) : undefined;
    if (duplicate) throw new ConfigError(`config file ${file}: key "${duplicate}": appears twice`);
    throw new ConfigError(`config file ${file}: not valid YAML: ${first.message.split('\n')[0]}`);
  }
  const value = doc.toJS() as unknown;
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`config file ${file}: the top level must be a mapping of keys (web, log, poll, sharding, target, targets, collectors)`);
  }
  return value as Record<string, unknown>;
}

/** The dotted path of the key on a (1-based) line, from the indentation of the lines above it. */
function duplicateKeyPath(text: string, line: number | undefined): string | undefined {
  if (line === undefined) return undefined;
  const lines = text.split('\n').slice(0, line);
  const keyOf = (l: string) => /^(\s*)([A-Za-z0-9_.-]+)\s*:/.exec(l);
  const own = keyOf(lines[line - 1] ?? '');
  if (!own) return undefined;
  const path = [own[2] as string];
  let indent = (own[1] as string).length;
  for (let i = line - 2; i >= 0 && indent > 0; i--) {
    const m = keyOf(lines[i] as string);
    if (m && (m[1] as string).length < indent) {
      path.unshift(m[2] as string);
      indent = (m[1] as string).length;
    }
  }
  return path.join('.');
}
