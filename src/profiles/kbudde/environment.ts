import { existsSync } from 'node:fs';
import { type Env, type EnvironmentContext, type PutKey, SettingError, type StartupWarning, type VariablesSeen } from '../profile-settings.js';
import { KBUDDE_MODULE_COLLECTORS, KBUDDE_MODULES, type KbuddeModule } from './modules.js';

/**
 * kbudde/rabbitmq_exporter's environment variables (test/fixtures/kbudde/environment.json),
 * read with its meaning and defaults and written onto this exporter's keys
 * (docs/kbudde-migration.md, "Environment variables"). Read only under the kbudde naming profile
 * chosen by --naming or EXPORTER_NAMING, and only without a config file: with one, kbudde read
 * no variable either (its file replaced them); here the file wins and the variables set are
 * reported as ignored. This exporter's own variables and flags go over them.
 *
 * | variable | key | conversion |
 * |---|---|---|
 * | RABBIT_URL | target.url | as given (default http://127.0.0.1:15672) |
 * | RABBIT_USER, RABBIT_USER_FILE | target.username | empty: guest; the file's content trimmed |
 * | RABBIT_PASSWORD, RABBIT_PASSWORD_FILE | target.password | empty: guest; the file's content trimmed |
 * | PUBLISH_ADDR, PUBLISH_PORT | web.listen_address | ADDR:PORT (default :9419) |
 * | OUTPUT_FORMAT | log.format | JSON (any case): json; else (default TTY) logfmt |
 * | LOG_LEVEL | log.level | lower-cased; warning: warn; panic: fatal |
 * | INCLUDE_QUEUES, SKIP_QUEUES | collectors.queues.queues.include, .exclude | default .* and ^$ |
 * | INCLUDE_VHOST, SKIP_VHOST | collectors.queues.vhosts, collectors.exchanges.vhosts | same |
 * | INCLUDE_EXCHANGES, SKIP_EXCHANGES | collectors.exchanges.exchanges | same (^$ leaves the default exchange out) |
 * | RABBIT_EXPORTERS | collectors.<x>.enabled, nodes.memory_breakdown, connections.by_peer_host, health_checks.aliveness_vhosts | modules → collectors (profiles/kbudde/modules.ts) |
 * | ALIVENESS_VHOST | collectors.health_checks.aliveness_vhosts | with module aliveness only (default /) |
 * | RABBIT_TIMEOUT | target.timeouts.request, .headers, .body | seconds; 0 keeps ours |
 * | MAX_QUEUES | collectors.queues.max_queues | ours caps per-queue series, keeps aggregates |
 * | SKIPVERIFY | target.tls.insecure_skip_verify | true, TRUE, 1 / false, FALSE, 0 |
 * | CAFILE, CERTFILE, KEYFILE | target.tls.ca_file, cert_file, key_file | defaults used when the files exist |
 * | RABBIT_CONNECTION | kbudde.connection | direct or loadbalancer |
 * | EXCLUDE_METRICS | kbudde.exclude_metrics | comma-separated API field keys |
 * | RABBIT_CAPABILITIES | none | accepted and ignored (no ?sort=, no BERT here) |
 */
export const KBUDDE_VARIABLES = [
  'RABBIT_URL', 'RABBIT_USER', 'RABBIT_PASSWORD', 'RABBIT_USER_FILE', 'RABBIT_PASSWORD_FILE', 'PUBLISH_PORT', 'PUBLISH_ADDR',
  'OUTPUT_FORMAT', 'LOG_LEVEL', 'INCLUDE_QUEUES', 'SKIP_QUEUES', 'INCLUDE_VHOST', 'SKIP_VHOST', 'INCLUDE_EXCHANGES', 'SKIP_EXCHANGES',
  'RABBIT_EXPORTERS', 'RABBIT_TIMEOUT', 'MAX_QUEUES', 'EXCLUDE_METRICS', 'SKIPVERIFY', 'CAFILE', 'CERTFILE', 'KEYFILE',
  'RABBIT_CONNECTION', 'RABBIT_CAPABILITIES', 'ALIVENESS_VHOST',
] as const;

/** The setting that turns the kbudde profile on, as a container's environment sets it. */
export const KBUDDE_PROFILE_SWITCH = 'EXPORTER_NAMING=kbudde';

/**
 * The start-up warning for kbudde's variables set while the kbudde profile is off: names only,
 * never values (RABBIT_PASSWORD is among them). Undefined when there are none. Without it a
 * container moved over from kbudde polled localhost as guest and logged only ECONNREFUSED.
 */
export function profileOffWarning(variables: readonly string[], configFile: string | undefined): StartupWarning | undefined {
  if (variables.length === 0) return undefined;
  const file = configFile === undefined ? '' : `, and only without a config file (${configFile} is given: its keys win; docs/kbudde-migration.md lists the key of each variable)`;
  return {
    fields: { variables: [...variables], turn_on: KBUDDE_PROFILE_SWITCH },
    message: `kbudde's environment variables are set but not read: they are read only under the kbudde naming profile, which ${KBUDDE_PROFILE_SWITCH} (or --naming=kbudde) turns on${file}`,
  };
}

/** The start-up warnings about kbudde's variables: set while the profile is off, or ignored because a config file wins. */
export function kbuddeStartupWarnings(seen: VariablesSeen, configFile: string | undefined): StartupWarning[] {
  const warnings: StartupWarning[] = [];
  const profileOff = profileOffWarning(seen.profileOff, configFile);
  if (profileOff) warnings.push(profileOff);
  if (seen.ignored.length > 0) {
    warnings.push({
      fields: { variables: seen.ignored, config_file: configFile },
      message: "kbudde's environment variables are not read when a config file is given: the file wins (docs/kbudde-migration.md)",
    });
  }
  return warnings;
}

const DEFAULT_MODULES: readonly KbuddeModule[] = ['exchange', 'node', 'overview', 'queue'];

/** The files kbudde's variables name that are read while the tree is made (the TLS files go into the tree). */
export const KBUDDE_LOGIN_FILES = ['RABBIT_USER_FILE', 'RABBIT_PASSWORD_FILE'] as const;

/**
 * Writes kbudde's variables, or their defaults, onto our keys. `collectors`: the name of every
 * collector the exporter has (those no enabled module maps to are disabled, as kbudde ran none).
 */
export function putKbuddeEnvironment({ env, put, collectors, readSecret }: EnvironmentContext): void {
  const given = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const from = (name: string) => (given(name) === undefined ? `kbudde's default of ${name}` : `environment variable ${name}`);
  const fail = (name: string, message: string): never => {
    throw new SettingError(`environment variable ${name}: ${message}`);
  };

  put(['target', 'url'], given('RABBIT_URL') ?? 'http://127.0.0.1:15672', from('RABBIT_URL'));
  putLogin(env, 'USER', ['target', 'username'], put, readSecret);
  putLogin(env, 'PASSWORD', ['target', 'password'], put, readSecret);

  const port = given('PUBLISH_PORT') ?? '9419';
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) fail('PUBLISH_PORT', `"${port}" is not a port number (0 to 65535)`);
  const addr = given('PUBLISH_ADDR') ?? '';
  const host = addr.includes(':') && !addr.startsWith('[') ? `[${addr}]` : addr;
  put(['web', 'listen_address'], `${host}:${Number(port)}`, given('PUBLISH_ADDR') === undefined ? from('PUBLISH_PORT') : 'environment variables PUBLISH_ADDR and PUBLISH_PORT');

  put(['log', 'format'], (given('OUTPUT_FORMAT') ?? 'TTY').toLowerCase() === 'json' ? 'json' : 'logfmt', from('OUTPUT_FORMAT'));
  const level = (given('LOG_LEVEL') ?? 'info').toLowerCase();
  const levels: Record<string, string> = { trace: 'trace', debug: 'debug', info: 'info', warn: 'warn', warning: 'warn', error: 'error', fatal: 'fatal', panic: 'fatal' };
  if (levels[level] === undefined) fail('LOG_LEVEL', `"${env.LOG_LEVEL}" is not one of ${Object.keys(levels).join(', ')}`);
  put(['log', 'level'], levels[level], from('LOG_LEVEL'));

  const filter = (include: string, skip: string) => {
    const value: Record<string, string> = { exclude: re2Pattern(skip, given(skip) ?? '^$') };
    if (given(include) !== undefined) value.include = re2Pattern(include, given(include) as string);
    return value;
  };
  const filterSource = (include: string, skip: string) => (given(include) ?? given(skip)) === undefined ? from(skip) : `environment variables ${include} and ${skip}`;
  put(['collectors', 'queues', 'queues'], filter('INCLUDE_QUEUES', 'SKIP_QUEUES'), filterSource('INCLUDE_QUEUES', 'SKIP_QUEUES'));
  put(['collectors', 'exchanges', 'exchanges'], filter('INCLUDE_EXCHANGES', 'SKIP_EXCHANGES'), filterSource('INCLUDE_EXCHANGES', 'SKIP_EXCHANGES'));
  // kbudde's vhost filters apply to its queue and exchange modules only.
  for (const collector of ['queues', 'exchanges']) {
    put(['collectors', collector, 'vhosts'], filter('INCLUDE_VHOST', 'SKIP_VHOST'), filterSource('INCLUDE_VHOST', 'SKIP_VHOST'));
  }

  const modules = kbuddeModules(given('RABBIT_EXPORTERS'));
  const enabledCollectors = new Set<string>(modules.map((m) => KBUDDE_MODULE_COLLECTORS[m]));
  for (const collector of collectors) {
    // The overview runs always (it describes the broker); kbudde's did too.
    if (collector === 'overview') continue;
    put(['collectors', collector, 'enabled'], enabledCollectors.has(collector), from('RABBIT_EXPORTERS'));
  }
  if (enabledCollectors.has('nodes')) put(['collectors', 'nodes', 'memory_breakdown'], modules.includes('memory'), from('RABBIT_EXPORTERS'));
  // kbudde's queue module serves each queue's length limits.
  if (modules.includes('queue')) put(['collectors', 'queues', 'limits'], true, from('RABBIT_EXPORTERS'));
  // kbudde's connections module groups by client host: our by_peer_host aggregates.
  if (modules.includes('connections')) put(['collectors', 'connections', 'by_peer_host'], true, from('RABBIT_EXPORTERS'));
  if (modules.includes('aliveness')) {
    // The aliveness test declares a queue on the broker: run because the operator listed the module.
    put(['collectors', 'health_checks', 'aliveness_vhosts'], [given('ALIVENESS_VHOST') ?? '/'], from('ALIVENESS_VHOST'));
  }

  const timeout = given('RABBIT_TIMEOUT') ?? '30';
  if (!/^\d+$/.test(timeout)) fail('RABBIT_TIMEOUT', `"${timeout}" is not a whole number of seconds`);
  // 0 was "no timeout" in kbudde; a request here always has a deadline, so 0 keeps ours.
  if (Number(timeout) > 0) {
    for (const key of ['request', 'headers', 'body']) put(['target', 'timeouts', key], `${Number(timeout)}s`, from('RABBIT_TIMEOUT'));
  }

  const maxQueues = given('MAX_QUEUES') ?? '0';
  if (!/^\d+$/.test(maxQueues)) fail('MAX_QUEUES', `"${maxQueues}" is not a whole number of at least 0`);
  put(['collectors', 'queues', 'max_queues'], Number(maxQueues), from('MAX_QUEUES'));

  const skipVerify = given('SKIPVERIFY') ?? 'false';
  // kbudde read only these three as true and every other value as false; a value such as "yes" is refused here.
  if (!['true', 'TRUE', '1', 'false', 'FALSE', '0'].includes(skipVerify)) fail('SKIPVERIFY', `"${skipVerify}" is neither true (true, TRUE, 1) nor false (false, FALSE, 0)`);
  put(['target', 'tls', 'insecure_skip_verify'], ['true', 'TRUE', '1'].includes(skipVerify), from('SKIPVERIFY'));
  putTlsFiles(given, put);

  const connection = given('RABBIT_CONNECTION') ?? 'direct';
  if (connection !== 'direct' && connection !== 'loadbalancer') fail('RABBIT_CONNECTION', `"${connection}" is neither direct nor loadbalancer`);
  put(['kbudde', 'connection'], connection, from('RABBIT_CONNECTION'));
  const excluded = (given('EXCLUDE_METRICS') ?? '').split(',').map((key) => key.trim()).filter((key) => key !== '');
  for (const key of excluded) {
    if (!/^[A-Za-z0-9_.-]+$/.test(key)) fail('EXCLUDE_METRICS', `"${key}" is not a management API field key such as recv_oct or message_stats.publish`);
  }
  put(['kbudde', 'exclude_metrics'], excluded, from('EXCLUDE_METRICS'));
}

/**
 * RABBIT_USER or RABBIT_USER_FILE (RABBIT_PASSWORD, RABBIT_PASSWORD_FILE): the file, when set,
 * wins; its content is trimmed; empty means guest. Messages name the file, never its content.
 */
function putLogin(env: Env, what: 'USER' | 'PASSWORD', path: string[], put: PutKey, readSecret: EnvironmentContext['readSecret']): void {
  const fileVariable: (typeof KBUDDE_LOGIN_FILES)[number] = `RABBIT_${what}_FILE`;
  const file = env[fileVariable];
  if (file !== undefined && file !== '') {
    const content = readSecret(file, `environment variable ${fileVariable}`).trim();
    put(path, content === '' ? 'guest' : content, `environment variable ${fileVariable}`);
    return;
  }
  const value = env[`RABBIT_${what}`];
  put(path, value === undefined || value === '' ? 'guest' : value, value ? `environment variable RABBIT_${what}` : `kbudde's default of RABBIT_${what}`);
}

/**
 * CAFILE, CERTFILE and KEYFILE. Their defaults (ca.pem, client-cert.pem, client-key.pem in the
 * working directory) are used when those files exist, as kbudde did; a file named in a variable
 * must be readable (kbudde went on silently without it), and a client certificate needs its key.
 */
function putTlsFiles(given: (name: string) => string | undefined, put: PutKey): void {
  const ca = given('CAFILE');
  if (ca !== undefined) put(['target', 'tls', 'ca_file'], ca, 'environment variable CAFILE');
  else if (existsSync('ca.pem')) put(['target', 'tls', 'ca_file'], 'ca.pem', "kbudde's default of CAFILE");
  const cert = given('CERTFILE');
  const key = given('KEYFILE');
  if (cert === undefined && key === undefined) {
    if (existsSync('client-cert.pem') && existsSync('client-key.pem')) {
      put(['target', 'tls', 'cert_file'], 'client-cert.pem', "kbudde's default of CERTFILE");
      put(['target', 'tls', 'key_file'], 'client-key.pem', "kbudde's default of KEYFILE");
    }
    return;
  }
  const certFile = cert ?? 'client-cert.pem';
  const keyFile = key ?? 'client-key.pem';
  for (const [variable, path] of [['CERTFILE', certFile], ['KEYFILE', keyFile]] as const) {
    if (!existsSync(path)) {
      throw new SettingError(`environment variable${cert !== undefined && key !== undefined ? 's CERTFILE and KEYFILE' : ` ${cert !== undefined ? 'CERTFILE' : 'KEYFILE'}`}: a client certificate needs both files; ${variable}'s ${path} does not exist`);
    }
  }
  put(['target', 'tls', 'cert_file'], certFile, cert !== undefined ? 'environment variable CERTFILE' : "kbudde's default of CERTFILE");
  put(['target', 'tls', 'key_file'], keyFile, key !== undefined ? 'environment variable KEYFILE' : "kbudde's default of KEYFILE");
}

/** RABBIT_EXPORTERS: comma-separated module names; overview always runs. */
function kbuddeModules(value: string | undefined): KbuddeModule[] {
  const names = value === undefined ? DEFAULT_MODULES : value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.filter((name) => !(KBUDDE_MODULES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    // kbudde ignored unknown names silently, so a typo switched a module off unseen.
    throw new SettingError(`environment variable RABBIT_EXPORTERS: ${unknown.map((n) => `"${n}"`).join(', ')} ${unknown.length === 1 ? 'is not a module' : 'are not modules'}; the modules are ${KBUDDE_MODULES.join(', ')}`);
  }
  return [...new Set<KbuddeModule>(['overview', ...(names as KbuddeModule[])])];
}

/**
 * Syntax of Go's RE2 that JavaScript's regular expressions lack or read otherwise: refused
 * naming the variable, since the expression would otherwise fail later or match other names.
 */
const RE2_ONLY: readonly (readonly [RegExp, string])[] = [
  [/\(\?[imsU-]+[:)]/, 'inline flags such as (?i): JavaScript has none; spell out both cases, e.g. [Oo]rders'],
  [/\(\?P</, '(?P<name>...) named groups: write (?<name>...)'],
  [/\[\[:[a-z]+:\]/, 'POSIX classes such as [[:alpha:]]: use [A-Za-z], \\d, \\s or \\w'],
  [/\\[zAQEC]/, '\\z, \\A, \\Q...\\E and \\C: use $ and ^ for the ends, and escape characters one by one'],
  [/\\p[A-Za-z]/, 'one-letter classes such as \\pL: write \\p{L}'],
];

/** A kbudde filter expression as our filters take it (a JavaScript expression, matched anywhere, as RE2's was). */
function re2Pattern(variable: string, pattern: string): string {
  for (const [syntax, advice] of RE2_ONLY) {
    if (syntax.test(pattern)) throw new SettingError(`environment variable ${variable}: "${pattern}" uses Go RE2 syntax this exporter's regular expressions lack: ${advice}`);
  }
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    throw new SettingError(`environment variable ${variable}: "${pattern}" is not a valid regular expression: ${(error as Error).message}`);
  }
  return pattern;
}
