// Issue 15: kbudde/rabbitmq_exporter's environment variables (test/fixtures/kbudde/environment.json),
// read under the kbudde profile without a config file, with kbudde's meaning and defaults.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../../../src/collectors/registry.js';
import type { ExporterConfig } from '../../../../src/config/exporter-config.js';
import { KBUDDE_VARIABLES, profileOffWarning } from '../../../../src/profiles/kbudde/environment.js';
import { redactedConfig } from '../../../../src/config/redacted-config.js';
import { excludedFamilies } from '../../../../src/profiles/kbudde/exclusions.js';
import { configLoader } from '../../config/load-with.js';

const { load, problem } = configLoader('rmqexp-kbudde-env-');
const dir = mkdtempSync(join(tmpdir(), 'rmqexp-kbudde-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

const KBUDDE = { EXPORTER_NAMING: 'kbudde' };
const kbudde = (env: Record<string, string> = {}) => load([], { ...KBUDDE, ...env });
const enabled = (config: ExporterConfig) => config.collectors.filter((c) => c.enabled).map((c) => c.name).sort();
const options = (config: ExporterConfig, name: string) => config.collectors.find((c) => c.name === name)!.options;

describe("kbudde's environment variables", () => {
  it('covers every variable environment.json lists', () => {
    const listed = (JSON.parse(readFileSync('test/fixtures/kbudde/environment.json', 'utf8')) as { variables: { name: string }[] }).variables.map((v) => v.name);
    expect([...KBUDDE_VARIABLES].sort()).toEqual(listed.sort());
  });

  it("applies kbudde's defaults when none is set", () => {
    const config = kbudde();
    expect(config.target.url).toBe('http://127.0.0.1:15672');
    expect(config.target.username).toBe('guest');
    expect(config.target.password).toBe('guest');
    expect(config.listenAddresses).toEqual([':9419']);
    expect(config.logFormat).toBe('logfmt');
    expect(config.logLevel).toBe('info');
    // RABBIT_EXPORTERS=exchange,node,overview,queue: the collectors of those modules only, no memory breakdown.
    expect(enabled(config)).toEqual(['exchanges', 'nodes', 'overview', 'queues']);
    expect(options(config, 'nodes').memory_breakdown).toBe(false);
    expect(options(config, 'queues').queues).toEqual({ exclude: '^$' });
    expect(options(config, 'queues').vhosts).toEqual({ exclude: '^$' });
    expect(options(config, 'exchanges').exchanges).toEqual({ exclude: '^$' });
    expect(options(config, 'exchanges').vhosts).toEqual({ exclude: '^$' });
    expect(options(config, 'queues').max_queues).toBe(0);
    expect(config.target.timeouts).toMatchObject({ totalMs: 30_000, headersMs: 30_000, bodyMs: 30_000 });
    expect(config.target.tls.insecureSkipVerify).toBe(false);
    expect(config.target.tls.caFile).toBeUndefined();
    expect(config.profiles.kbudde).toEqual({ connection: 'direct', excludeMetrics: [] });
    expect(config.profileVariables?.kbudde).toEqual({ read: [], ignored: [], profileOff: [] });
  });

  it('reads each variable onto its key', () => {
    const config = kbudde({
      RABBIT_URL: 'https://mq.example:15671/prefix',
      RABBIT_USER: 'monitor',
      RABBIT_PASSWORD: 's3cret',
      PUBLISH_PORT: '9500',
      PUBLISH_ADDR: '127.0.0.1',
      OUTPUT_FORMAT: 'Json',
      LOG_LEVEL: 'WARNING',
      INCLUDE_QUEUES: '^orders',
      SKIP_QUEUES: 'tmp$',
      INCLUDE_VHOST: '^prod',
      SKIP_VHOST: 'test',
      INCLUDE_EXCHANGES: 'amq\\.',
      SKIP_EXCHANGES: 'topic',
      RABBIT_EXPORTERS: 'queue, memory,shovel,federation,connections,aliveness',
      ALIVENESS_VHOST: 'prod',
      RABBIT_TIMEOUT: '12',
      MAX_QUEUES: '5000',
      EXCLUDE_METRICS: 'recv_oct,message_stats.publish',
      SKIPVERIFY: 'TRUE',
      RABBIT_CONNECTION: 'loadbalancer',
      RABBIT_CAPABILITIES: 'no_sort,bert',
    });
    expect(config.target.url).toBe('https://mq.example:15671/prefix');
    expect(config.target.username).toBe('monitor');
    expect(config.target.password).toBe('s3cret');
    expect(config.target.passwordSource).toBe('environment variable RABBIT_PASSWORD');
    expect(config.listenAddresses).toEqual(['127.0.0.1:9500']);
    expect(config.logFormat).toBe('json');
    expect(config.logLevel).toBe('warn');
    expect(options(config, 'queues').queues).toEqual({ include: '^orders', exclude: 'tmp$' });
    expect(options(config, 'queues').vhosts).toEqual({ include: '^prod', exclude: 'test' });
    expect(options(config, 'exchanges').vhosts).toEqual({ include: '^prod', exclude: 'test' });
    expect(options(config, 'exchanges').exchanges).toEqual({ include: 'amq\\.', exclude: 'topic' });
    expect(enabled(config)).toEqual(['connections', 'federation', 'health_checks', 'nodes', 'overview', 'queues', 'shovels']);
    expect(options(config, 'nodes').memory_breakdown).toBe(true);
    expect(options(config, 'connections').by_peer_host).toBe(true);
    expect(options(config, 'queues').limits).toBe(true);
    expect(options(config, 'health_checks').aliveness_vhosts).toEqual(['prod']);
    expect(config.target.timeouts).toMatchObject({ totalMs: 12_000, headersMs: 12_000, bodyMs: 12_000 });
    expect(options(config, 'queues').max_queues).toBe(5000);
    expect(config.target.tls.insecureSkipVerify).toBe(true);
    expect(config.profiles.kbudde).toEqual({ connection: 'loadbalancer', excludeMetrics: ['recv_oct', 'message_stats.publish'] });
    expect(config.targets[0]!.profiles?.kbudde).toEqual(config.profiles.kbudde);
    expect(config.profileVariables?.kbudde?.read).toContain('RABBIT_CAPABILITIES');
  });

  it('reads SKIPVERIFY as kbudde did, an IPv6 PUBLISH_ADDR in brackets, empty values as unset, RABBIT_TIMEOUT=0 as our deadlines', () => {
    expect(kbudde({ SKIPVERIFY: '1' }).target.tls.insecureSkipVerify).toBe(true);
    expect(kbudde({ SKIPVERIFY: 'false' }).target.tls.insecureSkipVerify).toBe(false);
    expect(kbudde({ PUBLISH_ADDR: '::1' }).listenAddresses).toEqual(['[::1]:9419']);
    expect(kbudde({ RABBIT_USER: '', RABBIT_URL: '' }).target).toMatchObject({ username: 'guest', url: 'http://127.0.0.1:15672' });
    expect(kbudde({ RABBIT_TIMEOUT: '0' }).target.timeouts).toMatchObject({ totalMs: 60_000, headersMs: 30_000 });
    expect(kbudde({ LOG_LEVEL: 'panic' }).logLevel).toBe('fatal');
  });

  it('reads the user and password files, trimmed, over RABBIT_USER and RABBIT_PASSWORD', () => {
    const config = kbudde({
      RABBIT_USER: 'ignored',
      RABBIT_PASSWORD: 'ignored-too',
      RABBIT_USER_FILE: file('user', '  monitor\n'),
      RABBIT_PASSWORD_FILE: file('password', 'from-file \n'),
    });
    expect(config.target.username).toBe('monitor');
    expect(config.target.password).toBe('from-file');
    expect(config.target.passwordSource).toBe('environment variable RABBIT_PASSWORD_FILE');
    expect(kbudde({ RABBIT_PASSWORD_FILE: file('empty', '\n') }).target.password).toBe('guest');
  });

  it('reads CAFILE, CERTFILE and KEYFILE when set', () => {
    const config = kbudde({ CAFILE: file('ca.pem', 'CA'), CERTFILE: file('cert.pem', 'CERT'), KEYFILE: file('key.pem', 'KEY') });
    expect(config.target.tls).toMatchObject({ caFile: join(dir, 'ca.pem'), certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') });
    expect(config.target.tls.ca?.toString()).toBe('CA');
  });

  it('is read only under the kbudde profile from --naming or EXPORTER_NAMING, and not with a config file (the file wins)', () => {
    const env = { RABBIT_URL: 'http://kbudde:15672', PUBLISH_PORT: '9500' };
    expect(load([], env).target.url).toBe('http://localhost:15672');
    expect(load(['--naming=kbudde'], env).target.url).toBe('http://kbudde:15672');
    const withFile = load([], { ...env, ...KBUDDE }, 'target:\n  url: http://file:15672\n');
    expect(withFile.target.url).toBe('http://file:15672');
    expect(withFile.listenAddresses).toEqual([':9419']);
    expect(withFile.profileVariables?.kbudde).toEqual({ read: [], ignored: ['RABBIT_URL', 'PUBLISH_PORT'], profileOff: [] });
    expect(load([], env, 'naming: kbudde\n').profileVariables?.kbudde.ignored).toEqual(['RABBIT_URL', 'PUBLISH_PORT']);
    // The file keeps this exporter's defaults: every collector it enables by default.
    expect(enabled(withFile)).toEqual(COLLECTORS.filter((c) => c.defaultEnabled).map((c) => c.name).sort());
  });

  // Issue 32: without EXPORTER_NAMING=kbudde, RABBIT_URL and the others were ignored without a word.
  it('with the profile off: the variables set are reported, by name, with the setting that turns the profile on', () => {
    const env = { RABBIT_URL: 'http://kbudde:15672', RABBIT_PASSWORD: 'kbudde-s3cr3t', OTHER: 'x' };
    const config = load([], env);
    expect(config.profileVariables?.kbudde).toEqual({ read: [], ignored: [], profileOff: ['RABBIT_URL', 'RABBIT_PASSWORD'] });
    const warning = profileOffWarning(config.profileVariables!.kbudde.profileOff, config.configFile);
    expect(warning).toEqual({
      fields: { variables: ['RABBIT_URL', 'RABBIT_PASSWORD'], turn_on: 'EXPORTER_NAMING=kbudde' },
      message: "kbudde's environment variables are set but not read: they are read only under the kbudde naming profile, which EXPORTER_NAMING=kbudde (or --naming=kbudde) turns on",
    });
    expect(JSON.stringify(warning)).not.toContain('kbudde-s3cr3t');
    expect(JSON.stringify(warning)).not.toContain('http://kbudde:15672');
    // With a config file, turning the profile on is not enough: the message says so.
    const withFile = load([], env, 'poll:\n  interval: 5s\n');
    expect(profileOffWarning(withFile.profileVariables!.kbudde.profileOff, withFile.configFile)?.message).toMatch(/turns on, and only without a config file \(.+ is given: its keys win/);
    // Under the profile, or with none of them set: no such warning.
    expect(load(['--naming=kbudde'], env).profileVariables?.kbudde.profileOff).toEqual([]);
    expect(profileOffWarning(load([], { OTHER: 'x' }).profileVariables!.kbudde.profileOff, undefined)).toBeUndefined();
  });

  it("gives way to this exporter's own variables and flags", () => {
    const config = load(['--web.listen-address=:9600', '--log.level=debug'], { ...KBUDDE, RABBIT_URL: 'http://a:15672', RABBITMQ_URL: 'http://b:15672', RABBIT_PASSWORD: 'p1', RABBITMQ_PASSWORD: 'p2', PUBLISH_PORT: '9500', LOG_LEVEL: 'error' });
    expect(config.target.url).toBe('http://b:15672');
    expect(config.target.password).toBe('p2');
    expect(config.listenAddresses).toEqual([':9600']);
    expect(config.logLevel).toBe('debug');
  });

  it('refuses bad values with a message naming the variable', () => {
    const bad = (env: Record<string, string>) => problem([], { ...KBUDDE, ...env });
    expect(bad({ PUBLISH_PORT: 'http' })).toMatch(/^environment variable PUBLISH_PORT: "http" is not a port number/);
    expect(bad({ PUBLISH_PORT: '70000' })).toMatch(/^environment variable PUBLISH_PORT:/);
    expect(bad({ LOG_LEVEL: 'verbose' })).toMatch(/^environment variable LOG_LEVEL: "verbose" is not one of trace, debug, info, warn, warning, error, fatal, panic/);
    expect(bad({ RABBIT_EXPORTERS: 'queue,nodes' })).toMatch(/^environment variable RABBIT_EXPORTERS: "nodes" is not a module; the modules are overview, queue, exchange, node/);
    expect(bad({ RABBIT_TIMEOUT: '1.5' })).toMatch(/^environment variable RABBIT_TIMEOUT: "1.5" is not a whole number of seconds/);
    expect(bad({ MAX_QUEUES: '-1' })).toMatch(/^environment variable MAX_QUEUES:/);
    expect(bad({ SKIPVERIFY: 'yes' })).toMatch(/^environment variable SKIPVERIFY: "yes" is neither true/);
    expect(bad({ RABBIT_CONNECTION: 'lb' })).toMatch(/^environment variable RABBIT_CONNECTION: "lb" is neither direct nor loadbalancer/);
    expect(bad({ EXCLUDE_METRICS: 'recv_oct,recv oct' })).toMatch(/^environment variable EXCLUDE_METRICS: "recv oct" is not a management API field key/);
    expect(bad({ RABBIT_URL: 'ftp://mq:21' })).toMatch(/environment variable RABBIT_URL: key "target.url": must be an http:\/\/ or https:\/\/ URL/);
    expect(bad({ RABBIT_USER_FILE: join(dir, 'absent') })).toMatch(/^environment variable RABBIT_USER_FILE: .*absent cannot be read \(no such file\)/);
    expect(bad({ RABBIT_PASSWORD_FILE: join(dir, 'absent') })).toMatch(/^environment variable RABBIT_PASSWORD_FILE: .*absent cannot be read \(no such file\)/);
    expect(bad({ CAFILE: join(dir, 'absent.pem') })).toMatch(/^environment variable CAFILE: key "target.tls.ca_file": .*absent.pem cannot be read \(no such file\)/);
    expect(bad({ CERTFILE: file('only-cert.pem', 'CERT') })).toMatch(/^environment variable CERTFILE: a client certificate needs both files; KEYFILE's client-key.pem does not exist/);
  });

  it('refuses Go RE2 syntax JavaScript lacks, and invalid expressions, naming the variable', () => {
    const bad = (env: Record<string, string>) => problem([], { ...KBUDDE, ...env });
    expect(bad({ SKIP_QUEUES: '(?i)^tmp' })).toMatch(/^environment variable SKIP_QUEUES: "\(\?i\)\^tmp" uses Go RE2 syntax .*inline flags/);
    expect(bad({ INCLUDE_VHOST: '[[:alpha:]]+' })).toMatch(/^environment variable INCLUDE_VHOST: .*POSIX classes/);
    expect(bad({ INCLUDE_EXCHANGES: 'x\\z' })).toMatch(/^environment variable INCLUDE_EXCHANGES: .*\\z/);
    expect(bad({ SKIP_EXCHANGES: '(?P<n>a)' })).toMatch(/^environment variable SKIP_EXCHANGES: .*named groups/);
    expect(bad({ INCLUDE_QUEUES: '\\pL' })).toMatch(/^environment variable INCLUDE_QUEUES: .*\\p\{L\}/);
    expect(bad({ SKIP_VHOST: 'a(' })).toMatch(/^environment variable SKIP_VHOST: "a\(" is not a valid regular expression/);
    // Syntax both read alike is taken as it is.
    expect(options(kbudde({ INCLUDE_QUEUES: '(?:a|b)\\d+\\p{L}' }), 'queues').queues).toEqual({ include: '(?:a|b)\\d+\\p{L}', exclude: '^$' });
  });

  it('never shows the password in the start-up configuration or in messages', () => {
    const secret = 'pa55-W0rd';
    const config = kbudde({ RABBIT_PASSWORD: secret });
    const shown = JSON.stringify(redactedConfig(config));
    expect(shown).not.toContain(secret);
    expect(shown).toContain('"kbuddeVariablesRead":["RABBIT_PASSWORD"]');
    const fromFile = kbudde({ RABBIT_PASSWORD_FILE: file('secret', `${secret}\n`) });
    expect(fromFile.target.password).toBe(secret);
    expect(JSON.stringify(redactedConfig(fromFile))).not.toContain(secret);
    // A bad setting beside the password file names neither the password nor the file's content.
    expect(problem([], { ...KBUDDE, RABBIT_PASSWORD_FILE: join(dir, 'secret'), RABBIT_URL: `http://u:${secret}@x:15672/?q` })).not.toContain(secret);
  });

  it("EXCLUDE_METRICS keys are kbudde's field keys: the families read from them, and the rate gauges of <field>_details.rate", () => {
    const families = COLLECTORS.flatMap((c) => c.metrics);
    const names = (keys: string[]) => [...excludedFamilies(families, keys)].map((d) => d.names?.kbudde?.name ?? `native ${d.name}`).sort();
    expect(names(['object_totals.queues', 'message_stats.publish_details.rate'])).toContain('rabbitmq_queues');
    expect(names(['object_totals.queues', 'message_stats.publish_details.rate'])).toContain('rabbitmq_messages_publish_rate');
    expect(names(['fd_total'])).toEqual(['rabbitmq_fd_available']);
    expect(names(['partitions_len'])).toEqual(['rabbitmq_partitions']);
    // Each family served is removed by the key families.json gives it; a key removes the families of
    // every module that read it (kbudde's meaning), so with it go exactly the served families
    // families.json gives the same key.
    const kbuddeFamilies = (JSON.parse(readFileSync('test/fixtures/kbudde/families.json', 'utf8')) as { families: { name: string; exclude_key: string | null }[] }).families;
    const keyOf = (name: string) => kbuddeFamilies.find((f) => f.name === name)!.exclude_key;
    const served = families.filter((d) => d.names?.kbudde?.name !== undefined && d.owner !== 'exporter');
    expect(served.length).toBeGreaterThan(50);
    for (const def of served) {
      const key = keyOf(def.names!.kbudde!.name!);
      // Families kbudde let no key remove (rabbitmq_version_info) have none here either: no field reads them.
      if (key === null) {
        expect(def.source, def.name).toBeUndefined();
        continue;
      }
      const removed = [...excludedFamilies(families, [key])].flatMap((d) => d.names?.kbudde?.name ?? []).sort();
      expect(removed, key).toContain(def.names!.kbudde!.name);
      expect(removed, key).toEqual(served.map((d) => d.names!.kbudde!.name!).filter((name) => keyOf(name) === key).sort());
    }
    expect(excludedFamilies(families, []).size).toBe(0);
  });
});
