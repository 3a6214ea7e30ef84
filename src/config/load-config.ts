import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import type { CliFlags } from '../cli/args.js';
import type { AnyCollector } from '../collectors/collector.js';
import { collectorByName, COLLECTORS } from '../collectors/registry.js';
import type { Credentials } from '../redaction/redactor.js';
import { ConfigError } from './config-error.js';
import { formatDuration } from './duration.js';
import { resolveSharding } from './sharding.js';
import type { ShardConfig } from '../shard/shard-assignment.js';
import { configSchema, MAX_DURATION_TEXT, MAX_TIMER_MS, type FileConfig } from './schema.js';

export interface TargetConfig {
  name: string;
  /** Without credentials: they are in username and password. */
  url: string;
  username: string;
  password: string;
  /** Where the password came from, for the start-up log (never the password itself). */
  passwordSource: string;
  /** Other credentials met on the way, redacted like the password: one given in the URL but overridden. */
  otherSecrets: string[];
  tls: { ca?: Buffer; cert?: Buffer; key?: Buffer; insecureSkipVerify: boolean; caFile?: string; certFile?: string; keyFile?: string };
  timeouts: { connectMs: number; headersMs: number; bodyMs: number; totalMs: number };
  maxResponseBytes: number;
  maxConcurrentRequests: number;
}

export interface CollectorConfig {
  name: string;
  enabled: boolean;
  intervalMs: number;
  timeoutMs: number;
  maxAgeMs: number;
  options: Record<string, unknown>;
}

/** The HTTP server's deadlines and bound (see web in config.example.yaml). */
export interface WebLimits {
  readTimeoutMs: number;
  writeTimeoutMs: number;
  idleTimeoutMs: number;
  maxConcurrentScrapes: number;
}

export interface PollConfig {
  intervalMs: number;
  jitter: number;
  backoffMaxMs: number;
}

/** What one polled broker is made from: a difference in any of it restarts that target. */
export interface TargetSetup {
  target: TargetConfig;
  poll: PollConfig;
  collectors: CollectorConfig[];
  /** Which part of the target this replica serves (absent: all of it). */
  sharding?: ShardConfig;
}

export interface ExporterConfig {
  configFile?: string;
  listenAddress: string;
  web: WebLimits;
  telemetryPath: string;
  logLevel: string;
  logFormat: 'json' | 'logfmt';
  /** The top level's target, poll and collectors: the one target without a `targets:` list, else what its entries fall back to. */
  poll: PollConfig;
  target: TargetConfig;
  collectors: CollectorConfig[];
  /** The brokers polled, in the order configured: the top level's one target, or the entries of `targets:`. */
  targets: TargetSetup[];
  /** This replica's shard among --total-shards (0 of 1: everything). */
  sharding: ShardConfig;
}

/** How a key is named in messages: the path in the merged tree, as the operator wrote it. */
type KeyName = (dotted: string) => string;
const sameKey: KeyName = (dotted) => dotted;

type Env = Record<string, string | undefined>;

/** Flags over environment over file over defaults. Throws ConfigError naming the key and its source. */
export function loadConfig(flags: CliFlags, env: Env): ExporterConfig {
  const file = flags.config;
  const raw = file ? readYaml(file) : {};
  const schema = configSchema();

  // Environment and flags are written into the file's tree before validation, so every
  // value passes the same checks; the message then names where the bad value came from.
  const sources = new Map<string, string>();
  const inFile = new Set(Object.keys(mapping(raw.sharding) ?? {}).map((key) => `sharding.${key}`));
  const set = (path: string[], value: string | undefined, source: string, parse: (v: string) => unknown = (v) => v) => {
    if (value === undefined) return;
    let node = raw as Record<string, unknown>;
    for (const key of path.slice(0, -1)) {
      if (node[key] === undefined || node[key] === null) node[key] = {};
      // A file value that is not a mapping stays, so validation reports it.
      if (typeof node[key] !== 'object' || Array.isArray(node[key])) return;
      node = node[key] as Record<string, unknown>;
    }
    node[path[path.length - 1] as string] = parse(value);
    sources.set(path.join('.'), source);
  };
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
  set(['web', 'listen_address'], flags.listenAddress, 'flag --web.listen-address');
  set(['log', 'level'], flags.logLevel, 'flag --log.level');
  set(['log', 'format'], flags.logFormat, 'flag --log.format');
  set(['web', 'telemetry_path'], flags.telemetryPath, 'flag --web.telemetry-path');
  set(['poll', 'interval'], flags.pollInterval, 'flag --poll.interval');
  const integerOrText = (v: string) => (/^\s*-?\d+\s*$/.test(v) ? Number(v) : v);
  set(['sharding', 'shard'], flags.shard, 'flag --shard', integerOrText);
  set(['sharding', 'total_shards'], flags.totalShards, 'flag --total-shards', integerOrText);

  // Entries of `targets:` are merged with the top level before the top level's defaults apply.
  const pristine = structuredClone(raw) as Record<string, unknown>;
  const result = schema.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(formatIssues(result.error.issues, file, sources));
  }
  const sharding = resolveSharding(result.data.sharding, env, (key) =>
    sources.has(key) || inFile.has(key) ? `${sourceOf(key, file, sources)}: key "${key}"` : `the default of key "${key}"`,
  );
  const top = resolve(result.data, file, sources);
  const entries = result.data.targets;
  const targets = entries === undefined ? top.targets : entries.map((_, i) => resolveEntry(pristine, i, schema, file, sources));
  return { ...top, sharding, targets: targets.map((setup) => ({ ...setup, sharding })) };
}

/**
 * The i-th entry of `targets:`: its keys over the top level's target, poll and collectors, then
 * checked and resolved as a whole configuration would be. Messages name the entry's key
 * (`targets[1].url`) when the entry set it, else the top level's.
 */
function resolveEntry(pristine: Record<string, unknown>, i: number, schema: ReturnType<typeof configSchema>, file: string | undefined, sources: Map<string, string>): TargetSetup {
  const entry = (pristine.targets as Record<string, unknown>[])[i] as Record<string, unknown>;
  const { name, poll, collectors, ...own } = entry as { name: string; poll?: Record<string, unknown>; collectors?: Record<string, unknown> } & Record<string, unknown>;
  const inherited = { ...(mapping(pristine.target) ?? {}) };
  // Credentials go together: an entry's own password, password file or URL with credentials replaces the top level's.
  if ('password' in own || 'password_file' in own) {
    delete inherited.password;
    delete inherited.password_file;
  }
  if (typeof own.url === 'string' && /^[a-z]+:\/\/[^/]*@/i.test(own.url)) {
    delete inherited.username;
    delete inherited.password;
    delete inherited.password_file;
  }
  const merged: Record<string, unknown> = {
    ...pristine,
    target: deepMerge(inherited, own),
    poll: deepMerge(mapping(pristine.poll) ?? {}, poll ?? {}),
    collectors: deepMerge(mapping(pristine.collectors) ?? {}, collectors ?? {}),
  };
  delete merged.targets;

  const setByEntry = (path: readonly PropertyKey[]): boolean => {
    const [section, key, sub] = path;
    if (section === 'target') return key === undefined || key in own;
    if (section === 'poll') return poll !== undefined && (key === undefined || key in poll);
    if (section === 'collectors') {
      if (collectors === undefined || key === undefined) return collectors !== undefined;
      if (!(String(key) in collectors)) return false;
      const own = mapping(collectors[String(key)]);
      return sub === undefined || own === undefined || String(sub) in own;
    }
    return false;
  };
  const keyName: KeyName = (dotted) => {
    const path = dotted.split('.');
    if (!setByEntry(path)) return dotted;
    const [section, ...rest] = path;
    return [`targets[${i}]`, ...(section === 'target' ? rest : path)].join('.');
  };

  const result = schema.safeParse(merged);
  if (!result.success) throw new ConfigError(formatIssues(result.error.issues, file, sources, keyName));
  const resolved = resolve(result.data, file, sources, keyName);
  return { ...resolved.targets[0]!, target: { ...resolved.target, name } };
}

function mapping(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** `over`'s keys over `base`'s; mappings merge key by key, anything else (lists too) is replaced. */
function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const below = mapping(merged[key]);
    const above = mapping(value);
    merged[key] = below && above ? deepMerge(below, above) : value;
  }
  return merged;
}

function readYaml(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`config file ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
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

function formatIssues(issues: readonly z.core.$ZodIssue[], file: string | undefined, sources: Map<string, string>, keyName: KeyName = sameKey): string {
  const lines = issues.flatMap((issue) => {
    const base = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => describe(pathText([...issue.path, key]), 'unknown key', file, sources, keyName, hint(base, key)));
    }
    return [describe(pathText(issue.path), issue.message, file, sources, keyName)];
  });
  return `invalid configuration:\n  ${lines.join('\n  ')}`;
}

/** `targets[1].url`: list positions in brackets, keys joined by dots. */
function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text === '' ? String(segment) : `${text}.${String(segment)}`), '');
}

function describe(dotted: string, message: string, file: string | undefined, sources: Map<string, string>, keyName: KeyName, extra = ''): string {
  const key = keyName(dotted) || '(top level)';
  return `${sourceOf(dotted, file, sources, keyName)}: key "${key}": ${message}${extra}`;
}

/** Where a key's value came from: a flag or variable sets only the top level's keys. */
function sourceOf(dotted: string, file: string | undefined, sources: Map<string, string>, keyName: KeyName = sameKey): string {
  const fromFile = file ? `config file ${file}` : 'defaults';
  return keyName(dotted) === dotted ? (sources.get(dotted) ?? fromFile) : fromFile;
}

function hint(parent: string[], key: string): string {
  if (parent.length === 1 && parent[0] === 'collectors') {
    return ` (known collectors: ${COLLECTORS.map((c) => c.name).join(', ')})`;
  }
  return '';
}

function resolve(config: FileConfig, file: string | undefined, sources: Map<string, string>, keyName: KeyName = sameKey): ExporterConfig {
  const target = config.target;
  const fromEntry = (dotted: string) => keyName(dotted) !== dotted;
  const url = new URL(target.url);
  let username = target.username;
  let password = target.password;
  let passwordSource = password !== undefined ? (fromEntry('target.password') ? 'config file' : (sources.get('target.password') ?? 'config file')) : 'default';
  const otherSecrets: string[] = [];
  // Credentials in the URL are accepted but moved out of it, so the URL can be logged.
  if (url.username || url.password) {
    // Used or not, the URL's password is a secret, as the URL spells it and decoded.
    if (url.password) otherSecrets.push(url.password, safeDecode(url.password));
    if ((fromEntry('target.username') || !sources.has('target.username')) && url.username) username = decodeURIComponent(url.username);
    if (password === undefined && target.password_file === undefined && url.password) {
      password = decodeURIComponent(url.password);
      passwordSource = 'url';
    }
    url.username = '';
    url.password = '';
  }
  if (target.password_file !== undefined) {
    if (target.password !== undefined) {
      throw new ConfigError(`${file ? `config file ${file}` : 'configuration'}: keys "${keyName('target.password')}" and "${keyName('target.password_file')}": set one, not both`);
    }
    const from = sourceOf('target.password_file', file, sources, keyName);
    password = readSecret(target.password_file, `${from}: key "${keyName('target.password_file')}"`);
    passwordSource = `file ${target.password_file}`;
  }
  const readTls = (key: 'ca_file' | 'cert_file' | 'key_file') => {
    const path = target.tls[key];
    if (path === undefined) return undefined;
    try {
      return readFileSync(path);
    } catch (error) {
      throw new ConfigError(`config file ${file}: key "${keyName(`target.tls.${key}`)}": ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  };
  if ((target.tls.cert_file === undefined) !== (target.tls.key_file === undefined)) {
    throw new ConfigError(`config file ${file}: keys "${keyName('target.tls.cert_file')}" and "${keyName('target.tls.key_file')}": give both or neither`);
  }

  if ((config.collectors as Record<string, { enabled?: boolean }>).overview?.enabled === false) {
    throw new ConfigError(`config file ${file}: key "${keyName('collectors.overview.enabled')}": the overview collector cannot be disabled, it decides rabbitmq_up`);
  }
  const base = config.poll.interval;
  const problems: string[] = [];
  const collectors = COLLECTORS.map((collector): CollectorConfig => {
    const own = ((config.collectors as Record<string, Record<string, unknown>>)[collector.name] ?? {}) as Record<string, unknown>;
    const { enabled, interval, timeout, max_age, ...options } = own as {
      enabled?: boolean;
      interval?: number;
      timeout?: number;
      max_age?: number;
    } & Record<string, unknown>;
    const key = `collectors.${collector.name}`;
    // Each value set in the file was checked by the schema; a derived one is checked here, naming
    // the key it was derived from, since Node would fire an overlong timer after 1 ms.
    let reported = false;
    const derived = (name: string, ms: number, how: string, from: string): number => {
      // One line per collector: a max_age derived from a bad interval says nothing new.
      if (ms > MAX_TIMER_MS && !reported) {
        reported = true;
        problems.push(
          `${sourceOf(from, file, sources, keyName)}: key "${keyName(from)}": makes ${keyName(`${key}.${name}`)} ${formatDuration(ms)} (${how}), over the longest allowed ${MAX_DURATION_TEXT}; ` +
            `set a shorter ${keyName(from)} or set ${keyName(`${key}.${name}`)}`,
        );
      }
      return ms;
    };
    const intervalMs = interval ?? derived('interval', base * collector.defaultIntervalMultiplier, `${collector.defaultIntervalMultiplier} × poll.interval`, 'poll.interval');
    const intervalFrom = interval === undefined ? 'poll.interval' : `${key}.interval`;
    const timeoutMs = timeout ?? defaultTimeout(collector, intervalMs);
    // Data stay served while the next poll may still be running within its deadline.
    const maxAgeMs = max_age ?? config.poll.max_age ?? derived('max_age', Math.max(3 * intervalMs, intervalMs + timeoutMs), `3 × ${key}.interval`, intervalFrom);
    return {
      name: collector.name,
      enabled: enabled ?? collectorByName(collector.name)!.defaultEnabled,
      intervalMs,
      timeoutMs,
      maxAgeMs,
      options,
    };
  });
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);

  const poll: PollConfig = { intervalMs: base, jitter: config.poll.jitter, backoffMaxMs: config.poll.backoff_max };
  const resolvedTarget: TargetConfig = {
    name: 'default',
    url: url.toString().replace(/\/$/, ''),
    username,
    password: password ?? 'guest',
    passwordSource,
    otherSecrets: [...new Set(otherSecrets)].filter((s) => s !== password),
    tls: {
      ca: readTls('ca_file'),
      cert: readTls('cert_file'),
      key: readTls('key_file'),
      insecureSkipVerify: target.tls.insecure_skip_verify,
      caFile: target.tls.ca_file,
      certFile: target.tls.cert_file,
      keyFile: target.tls.key_file,
    },
    timeouts: {
      connectMs: target.timeouts.connect,
      headersMs: target.timeouts.headers,
      bodyMs: target.timeouts.body,
      totalMs: target.timeouts.request,
    },
    maxResponseBytes: target.max_response_bytes,
    maxConcurrentRequests: target.max_concurrent_requests,
  };
  return {
    configFile: file,
    listenAddress: config.web.listen_address,
    web: {
      readTimeoutMs: config.web.read_timeout,
      writeTimeoutMs: config.web.write_timeout,
      idleTimeoutMs: config.web.idle_timeout,
      maxConcurrentScrapes: config.web.max_concurrent_scrapes,
    },
    telemetryPath: config.web.telemetry_path,
    logLevel: config.log.level,
    logFormat: config.log.format,
    poll,
    target: resolvedTarget,
    collectors,
    targets: [{ target: resolvedTarget, poll, collectors }],
    sharding: { shard: 0, totalShards: 1 },
  };
}


/** The shortest default deadline of a collector that reads lists: 10k queues take seconds to answer. */
export const MIN_DEFAULT_LIST_TIMEOUT_MS = 30_000;

/**
 * A poll's deadline when none is configured. The overview and health checks keep their interval:
 * they are small, and how soon a hung broker shows as down depends on it. Every other collector
 * gets at least MIN_DEFAULT_LIST_TIMEOUT_MS, so a short interval on a big broker does not make a
 * deadline no poll can meet; such a poll then runs past its interval (polls never overlap), and
 * its data are as old as the poll is long.
 */
function defaultTimeout(collector: AnyCollector, intervalMs: number): number {
  return collector.lane === 'overview' || collector.lane === 'health' ? intervalMs : Math.max(intervalMs, MIN_DEFAULT_LIST_TIMEOUT_MS);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** What the redactor must remove for this target (see src/redaction/redactor.ts). */
export function targetCredentials(target: TargetConfig): Credentials {
  return {
    username: target.username,
    secrets: [target.password, ...target.otherSecrets],
    // The private key never leaves the process; its lines are listed should some error quote them.
    material: target.tls.key ? pemLines(target.tls.key.toString('utf8')) : [],
  };
}

function pemLines(pem: string): string[] {
  return pem.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('-----') && !l.includes(':'));
}

function readSecret(path: string, where: string): string {
  try {
    // A trailing newline is how most secret files end; it is not part of the password.
    return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new ConfigError(`${where}: ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** The effective configuration for the start-up log: no secret, no key material. */
export function redactedConfig(config: ExporterConfig): Record<string, unknown> {
  const several = config.targets.length > 1 || config.targets[0]?.target !== config.target;
  return {
    configFile: config.configFile ?? null,
    listenAddress: config.listenAddress,
    web: config.web,
    telemetryPath: config.telemetryPath,
    logLevel: config.logLevel,
    logFormat: config.logFormat,
    poll: config.poll,
    sharding: config.sharding,
    target: redactedTarget(config.target),
    collectors: config.collectors,
    // Each entry of `targets:`, its collectors shown only where they differ from the top level's.
    ...(several
      ? {
          targets: config.targets.map((setup) => ({
            ...redactedTarget(setup.target),
            poll: setup.poll,
            ...(isDeepStrictEqual(setup.collectors, config.collectors) ? {} : { collectors: setup.collectors }),
          })),
        }
      : {}),
  };
}

function redactedTarget(target: TargetConfig): Record<string, unknown> {
  return {
    name: target.name,
    url: target.url,
    username: target.username,
    password: '<redacted>',
    passwordSource: target.passwordSource,
    tls: { caFile: target.tls.caFile, certFile: target.tls.certFile, keyFile: target.tls.keyFile, insecureSkipVerify: target.tls.insecureSkipVerify },
    timeouts: target.timeouts,
    maxResponseBytes: target.maxResponseBytes,
    maxConcurrentRequests: target.maxConcurrentRequests,
  };
}
