import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliFlags } from '../../../src/cli/args.js';
import { ConfigError } from '../../../src/config/config-error.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { redactedConfig } from '../../../src/config/redacted-config.js';
import type { ExporterConfig } from '../../../src/config/exporter-config.js';
import { REPO_ROOT } from '../../support/fixtures.js';

// Paths inside the testdata files (password_file, tls.*) are relative to the repository root,
// which is where vitest runs; the config file paths below are relative to it as well.
const TESTDATA = 'test/unit/config/testdata';
const td = (name: string) => `${TESTDATA}/${name}`;

function flags(extra: Partial<CliFlags> = {}): CliFlags {
  return { help: false, version: false, ...extra };
}

function load(file: string | undefined, env: Record<string, string | undefined> = {}, extra: Partial<CliFlags> = {}): ExporterConfig {
  return loadConfig(flags({ ...(file ? { config: file } : {}), ...extra }), env, COLLECTORS);
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, but nothing was thrown');
}

function collector(config: ExporterConfig, name: string) {
  const found = config.collectors.find((c) => c.name === name);
  if (!found) throw new Error(`no collector ${name} in the config`);
  return found;
}

let tmp: string;
beforeAll(() => {
  expect(process.cwd().replace(/\/$/, '')).toBe(REPO_ROOT.replace(/\/$/, ''));
  tmp = mkdtempSync(join(tmpdir(), 'rmq-exporter-config-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('good files', () => {
  it('an empty file gives every default', () => {
    const config = load(td('good-empty.yaml'));
    expect(config.configFile).toBe(td('good-empty.yaml'));
    expect(config.listenAddress).toBe(':9419');
    expect(config.web).toEqual({ readTimeoutMs: 10_000, writeTimeoutMs: 60_000, idleTimeoutMs: 5000, maxConcurrentScrapes: 10, maxConnections: 512 });
    expect(config.logLevel).toBe('info');
    expect(config.poll).toEqual({ intervalMs: 15_000, jitter: 0.1, backoffMaxMs: 120_000 });
    expect(config.target.url).toBe('http://localhost:15672');
    expect(config.target.username).toBe('guest');
    expect(config.target.password).toBe('guest');
    expect(config.target.passwordSource).toBe('default');
    expect(config.target.timeouts).toEqual({ connectMs: 5000, headersMs: 30_000, bodyMs: 30_000, totalMs: 60_000 });
    expect(config.target.maxResponseBytes).toBe(160 * 1024 * 1024);
    expect(config.target.maxConcurrentRequests).toBe(2);
    expect(config.target.tls.insecureSkipVerify).toBe(false);
    expect(config.target.tls.ca).toBeUndefined();
    expect(config.collectors.map((c) => c.name)).toEqual(COLLECTORS.map((c) => c.name));
    expect(config.collectors.slice(0, 2).map((c) => c.name)).toEqual(['overview', 'nodes']);
    expect(collector(config, 'overview')).toEqual({
      name: 'overview',
      enabled: true,
      intervalMs: 15_000,
      timeoutMs: 15_000,
      maxAgeMs: 45_000,
      options: { rates: true },
    });
    expect(collector(config, 'nodes')).toEqual({
      name: 'nodes',
      enabled: true,
      intervalMs: 15_000,
      timeoutMs: 30_000,
      maxAgeMs: 45_000,
      options: { rates: true, memory_breakdown: true, memory_breakdown_every: 4 },
    });
  });

  it('no file at all gives the same defaults as an empty file', () => {
    const none = load(undefined);
    const empty = load(td('good-empty.yaml'));
    expect(none.configFile).toBeUndefined();
    expect({ ...none, configFile: 'x' }).toEqual({ ...empty, configFile: 'x' });
  });

  it('a file using every key is read into every field', () => {
    const config = load(td('good-full.yaml'));
    expect(config.listenAddress).toBe('127.0.0.1:9999');
    expect(config.web).toEqual({ readTimeoutMs: 3000, writeTimeoutMs: 20_000, idleTimeoutMs: 30_000, maxConcurrentScrapes: 4, maxConnections: 300 });
    expect(config.logLevel).toBe('debug');
    expect(config.poll).toEqual({ intervalMs: 10_000, jitter: 0.2, backoffMaxMs: 300_000 });
    const t = config.target;
    expect(t.url).toBe('https://mq.example:15671/rabbit');
    expect(t.username).toBe('monitor');
    expect(t.password).toBe('full-file-secret-8f3a');
    expect(t.passwordSource).toBe('config file');
    expect(t.tls.insecureSkipVerify).toBe(true);
    expect(t.tls.caFile).toBe(td('tls/ca.pem'));
    expect(t.tls.certFile).toBe(td('tls/client.pem'));
    expect(t.tls.keyFile).toBe(td('tls/client-key.pem'));
    expect(t.tls.ca?.toString('utf8')).toBe(readFileSync(td('tls/ca.pem'), 'utf8'));
    expect(t.tls.cert?.toString('utf8')).toContain('ZmFrZSBjbGllbnQ=');
    expect(t.tls.key?.toString('utf8')).toContain('c2VjcmV0LWtleS1tYXRlcmlhbC03NzE=');
    expect(t.timeouts).toEqual({ connectMs: 2000, headersMs: 3000, bodyMs: 4000, totalMs: 90_000 });
    expect(t.maxResponseBytes).toBe(1_048_576);
    expect(t.maxConcurrentRequests).toBe(4);
    expect(collector(config, 'overview')).toEqual({
      name: 'overview',
      enabled: true,
      intervalMs: 20_000,
      timeoutMs: 5000,
      maxAgeMs: 120_000,
      options: { rates: false },
    });
    expect(collector(config, 'nodes')).toEqual({
      name: 'nodes',
      enabled: false,
      intervalMs: 30_000,
      timeoutMs: 500,
      maxAgeMs: 90_000,
      options: { rates: false, memory_breakdown: false, memory_breakdown_every: 2 },
    });
  });

  it('password_file is read with its trailing newline stripped', () => {
    const config = load(td('good-password-file.yaml'));
    expect(readFileSync(td('secret.txt'), 'utf8')).toBe('file-secret-0c1d\n');
    expect(config.target.password).toBe('file-secret-0c1d');
    expect(config.target.username).toBe('reader');
    expect(config.target.passwordSource).toBe(`file ${td('secret.txt')}`);
  });

  it('credentials in the URL are moved out of it (and percent-decoded)', () => {
    const config = load(td('good-url-credentials.yaml'));
    expect(config.target.url).toBe('http://broker.example:15672');
    expect(config.target.username).toBe('u@corp');
    expect(config.target.password).toBe('p:ss');
    expect(config.target.passwordSource).toBe('url');
  });

  it('credentials in RABBITMQ_URL are moved out of it too', () => {
    const config = load(undefined, { RABBITMQ_URL: 'http://env-user:env-pass@h.example:15672/prefix/' });
    expect(config.target.url).toBe('http://h.example:15672/prefix');
    expect(config.target.username).toBe('env-user');
    expect(config.target.password).toBe('env-pass');
    expect(config.target.url).not.toContain('env-pass');
  });

  it('RABBITMQ_USERNAME wins over the user name in the URL', () => {
    const config = load(undefined, { RABBITMQ_URL: 'http://url-user:url-pass@h.example:15672', RABBITMQ_USERNAME: 'env-user' });
    expect(config.target.username).toBe('env-user');
    expect(config.target.password).toBe('url-pass');
  });
});

describe('bad files', () => {
  const files = readdirSync(TESTDATA).filter((f) => f.startsWith('bad-') && f.endsWith('.yaml'));

  it('every bad file has its .expected message', () => {
    expect(files.length).toBeGreaterThanOrEqual(20);
    for (const file of files) expect(existsSync(td(file.replace(/\.yaml$/, '.expected'))), file).toBe(true);
  });

  it.each(files)('%s is refused with its message, naming the file', (file) => {
    const expected = readFileSync(td(file.replace(/\.yaml$/, '.expected')), 'utf8').trim();
    const error = configError(() => load(td(file)));
    expect(error.message).toContain(expected);
    expect(error.message).toContain(`config file ${td(file)}`);
  });

  it('messages of schema errors name the key in "quotes" (one line per problem)', () => {
    const error = configError(() => load(td('bad-unknown-nested-key.yaml')));
    expect(error.message).toBe(`invalid configuration:\n  config file ${td('bad-unknown-nested-key.yaml')}: key "poll.intervall": unknown key (did you mean "interval"?)`);
  });

  it('an unknown collector lists the known ones', () => {
    const error = configError(() => load(td('bad-unknown-collector.yaml')));
    expect(error.message).toContain(`(known collectors: ${COLLECTORS.map((c) => c.name).join(', ')})`);
    expect(error.message).toMatch(/\(known collectors: overview, nodes[,)]/);
  });

  it('a key that is nowhere near a known one gets no guess', () => {
    const file = join(tmp, 'far.yaml');
    writeFileSync(file, 'poll:\n  cadence: 10s\n');
    expect(configError(() => load(file)).message).toBe(`invalid configuration:\n  config file ${file}: key "poll.cadence": unknown key`);
  });

  it('a duration without a unit says which unit to add; a missing file says so in words', () => {
    const file = join(tmp, 'no-unit.yaml');
    writeFileSync(file, 'poll:\n  interval: 30\n');
    expect(configError(() => load(file)).message).toContain('key "poll.interval": 30 has no unit: write a duration such as 30s (units ms, s, m, h, d)');
    expect(configError(() => load(join(tmp, 'absent.yaml'))).message).toBe(`config file ${join(tmp, 'absent.yaml')}: cannot be read: no such file (flag --config.file)`);
  });

  it('a wrong type says what was expected', () => {
    const error = configError(() => load(td('bad-wrong-type.yaml')));
    expect(error.message).toMatch(/key "target\.max_concurrent_requests": .*expected number/);
  });

  it('several problems are all reported', () => {
    const file = join(tmp, 'several.yaml');
    writeFileSync(file, 'poll:\n  interval: soon\nlog:\n  level: loud\nextra: 1\n');
    const error = configError(() => load(file));
    expect(error.message).toContain('key "poll.interval"');
    expect(error.message).toContain('key "log.level"');
    expect(error.message).toContain('key "extra": unknown key');
    expect(error.message.split('\n')).toHaveLength(4);
  });

  it('a YAML syntax error names the file and the line', () => {
    const error = configError(() => load(td('bad-yaml-syntax.yaml')));
    expect(error.message).toMatch(/^config file test\/unit\/config\/testdata\/bad-yaml-syntax\.yaml: not valid YAML: .* at line \d+, column \d+/);
    // Only the first line of the parser's pretty message: no source excerpt spread over lines.
    expect(error.message).not.toContain('\n');
  });

  // Was a bug (readYaml, now in src/config/sources.ts): a duplicated key was reported with the yaml
  // library's "Map keys must be unique at line 3, column 3" only; the key itself
  // ("interval", or its path "poll.interval") was not named, unlike every other key error.
  it('a duplicated key names the key', () => {
    const error = configError(() => load(td('bad-duplicate-key.yaml')));
    expect(error.message).toContain('poll.interval');
  });

  it('an unreadable config file path is refused, naming the path and the reason', () => {
    const missing = join(tmp, 'nope', 'missing.yaml');
    const error = configError(() => load(missing));
    expect(error.message).toBe(`config file ${missing}: cannot be read: no such file (flag --config.file)`);
  });

  it('a directory as config file is refused', () => {
    const error = configError(() => load(tmp));
    expect(error.message).toBe(`config file ${tmp}: cannot be read: not a regular file but a directory (flag --config.file)`);
  });

  // Was a bug (readConfigTree's set, src/config/sources.ts): when the environment set a key below a
  // file value that is not a mapping (`target: localhost`), the file's value was silently
  // replaced by {} instead of being reported, so a broken file went unnoticed.
  it('a non-mapping "target" in the file is reported even when RABBITMQ_URL is set', () => {
    const file = join(tmp, 'target-scalar.yaml');
    writeFileSync(file, 'target: localhost\n');
    // Without the environment variable it is refused:
    expect(configError(() => load(file)).message).toContain('key "target"');
    // With it, it must still be refused:
    const error = configError(() => load(file, { RABBITMQ_URL: 'http://h.example:15672' }));
    expect(error.message).toContain('key "target"');
  });

  // A bug since fixed, kept as a regression test (src/config/schema.ts duration): durations have no upper bound, but the scheduler and
  // the client use them as setTimeout/AbortSignal.timeout delays, which Node caps at
  // 2^31-1 ms (~24.8 days): a longer value becomes a 1 ms timer (Node prints
  // TimeoutOverflowWarning) and the collector would poll the broker in a tight loop.
  it('a poll.interval longer than a timer can hold (> 24.8 days) is refused', () => {
    const file = join(tmp, 'huge-interval.yaml');
    writeFileSync(file, 'poll:\n  interval: 1000h\n');
    const error = configError(() => load(file));
    expect(error.message).toContain('key "poll.interval"');
  });
});

describe('precedence: flags over environment over file over defaults', () => {
  it('flag --poll.interval over the file', () => {
    expect(load(td('good-poll-interval.yaml')).poll.intervalMs).toBe(30_000);
    const config = load(td('good-poll-interval.yaml'), {}, { pollInterval: '2s' });
    expect(config.poll.intervalMs).toBe(2000);
    // Derived values follow the effective interval.
    expect(collector(config, 'nodes').intervalMs).toBe(2000);
    expect(collector(config, 'nodes').maxAgeMs).toBe(2000 + 30_000);
  });

  it('flags --web.listen-address and --log.level over the file', () => {
    const config = load(td('good-full.yaml'), {}, { listenAddress: ':9500', logLevel: 'warn' });
    expect(config.listenAddress).toBe(':9500');
    expect(config.logLevel).toBe('warn');
  });

  it('a bad flag value is reported as coming from the flag', () => {
    const error = configError(() => load(td('good-poll-interval.yaml'), {}, { pollInterval: 'fast' }));
    expect(error.message).toContain('flag --poll.interval: key "poll.interval"');
    expect(error.message).toContain('"fast" is not a duration');
    expect(error.message).not.toContain('config file');
  });

  it('a bad listen address flag names the flag', () => {
    const error = configError(() => load(undefined, {}, { listenAddress: 'localhost' }));
    expect(error.message).toContain('flag --web.listen-address: key "web.listen_address"');
  });

  it('RABBITMQ_URL over the file target.url', () => {
    expect(load(td('good-poll-interval.yaml')).target.url).toBe('http://from-file.example:15672');
    const config = load(td('good-poll-interval.yaml'), { RABBITMQ_URL: 'https://from-env.example:15671' });
    expect(config.target.url).toBe('https://from-env.example:15671');
  });

  it('a bad RABBITMQ_URL names the environment variable', () => {
    const error = configError(() => load(td('good-poll-interval.yaml'), { RABBITMQ_URL: 'amqp://h.example:5672' }));
    expect(error.message).toContain('environment variable RABBITMQ_URL: key "target.url": must be an http:// or https:// URL');
  });

  it.each([
    ['http://user:pw%zz-s3cr3t@h.example:15672', 'not valid percent-encoding'],
    ['http://user:12/s3cr3t@h.example', 'has an "@" after the host'],
  ])('a RABBITMQ_URL that does not parse cleanly (%j) is a config error that does not repeat it', (url, message) => {
    const error = configError(() => load(undefined, { RABBITMQ_URL: url }));
    expect(error.message).toContain(`environment variable RABBITMQ_URL: key "target.url": `);
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('s3cr3t');
    expect(error.message).not.toContain('user:');
  });

  it('a percent-encoded password in RABBITMQ_URL is decoded, and the URL left without it', () => {
    const config = load(undefined, { RABBITMQ_URL: 'http://u%40corp:p%3As%2Fs%25x@h.example:15672' });
    expect(config.target.username).toBe('u@corp');
    expect(config.target.password).toBe('p:s/s%x');
    expect(config.target.url).toBe('http://h.example:15672');
  });

  it('RABBITMQ_USERNAME and RABBITMQ_PASSWORD over the file', () => {
    const config = load(td('good-poll-interval.yaml'), { RABBITMQ_USERNAME: 'env-user', RABBITMQ_PASSWORD: 'env-secret' });
    expect(config.target.username).toBe('env-user');
    expect(config.target.password).toBe('env-secret');
    expect(config.target.passwordSource).toBe('environment variable RABBITMQ_PASSWORD');
  });

  it('RABBITMQ_PASSWORD over a password_file in the file', () => {
    const config = load(td('good-password-file.yaml'), { RABBITMQ_PASSWORD: 'env-secret' });
    expect(config.target.password).toBe('env-secret');
  });

  it('RABBITMQ_PASSWORD_FILE is read with its trailing newline stripped, over the file password', () => {
    const secret = join(tmp, 'env-secret');
    writeFileSync(secret, 'env-file-secret\r\n');
    const config = load(td('good-poll-interval.yaml'), { RABBITMQ_PASSWORD_FILE: secret });
    expect(config.target.password).toBe('env-file-secret');
    expect(config.target.passwordSource).toBe(`file ${secret}`);
  });

  it('only one trailing newline is stripped from a password file', () => {
    const secret = join(tmp, 'two-newlines');
    writeFileSync(secret, ' spaced pass \n\n');
    expect(load(undefined, { RABBITMQ_PASSWORD_FILE: secret }).target.password).toBe(' spaced pass \n');
  });

  it('an unreadable RABBITMQ_PASSWORD_FILE names the variable and the key', () => {
    const missing = join(tmp, 'no-such-secret');
    const error = configError(() => load(undefined, { RABBITMQ_PASSWORD_FILE: missing }));
    expect(error.message).toBe(
      `environment variable RABBITMQ_PASSWORD_FILE: key "target.password_file": ${missing} cannot be read (no such file)`,
    );
  });

  it('RABBITMQ_PASSWORD and RABBITMQ_PASSWORD_FILE both set is an error', () => {
    const error = configError(() => load(undefined, { RABBITMQ_PASSWORD: 'a', RABBITMQ_PASSWORD_FILE: td('secret.txt') }));
    expect(error.message).toContain('RABBITMQ_PASSWORD');
    expect(error.message).toContain('RABBITMQ_PASSWORD_FILE');
    expect(error.message).toContain('not both');
  });

  it('an explicit password wins over the one in the URL', () => {
    const config = load(undefined, { RABBITMQ_URL: 'http://u:url-pass@h.example:15672', RABBITMQ_PASSWORD: 'explicit' });
    expect(config.target.password).toBe('explicit');
    expect(config.target.url).toBe('http://h.example:15672');
  });

  it('unrelated environment variables are ignored', () => {
    const config = load(undefined, { HOME: '/root', RABBITMQ_NODENAME: 'rabbit@x' });
    expect(config.target.url).toBe('http://localhost:15672');
  });
});

describe('derived collector settings', () => {
  it('interval defaults to multiplier × poll.interval, timeout to the interval, max_age to 3 × interval', () => {
    const file = join(tmp, 'derived.yaml');
    writeFileSync(file, 'poll:\n  interval: 40s\ncollectors:\n  nodes:\n    interval: 50s\n');
    const config = load(file);
    expect(collector(config, 'overview')).toMatchObject({ intervalMs: 40_000, timeoutMs: 40_000, maxAgeMs: 120_000 });
    expect(collector(config, 'nodes')).toMatchObject({ intervalMs: 50_000, timeoutMs: 50_000, maxAgeMs: 150_000 });
  });

  // Issue 17: with --poll.interval 2s against 10k queues, queues, exchanges and nodes never
  // succeeded, because their deadline was their interval and no poll could meet it.
  // Issue 32: at poll.interval 1s the overview's deadline was 1 s, and a slow but live broker read as down in half the polls.
  it('a collector reading lists gets a deadline of at least 30 s; overview and health checks their interval, at least 10 s', () => {
    const config = load(undefined, {}, { pollInterval: '2s' });
    expect(collector(config, 'overview')).toMatchObject({ intervalMs: 2000, timeoutMs: 10_000, maxAgeMs: 12_000 });
    expect(collector(config, 'health_checks')).toMatchObject({ intervalMs: 4000, timeoutMs: 10_000, maxAgeMs: 14_000 });
    // Data stay served while the next poll may still run: interval + deadline.
    expect(collector(config, 'queues')).toMatchObject({ intervalMs: 4000, timeoutMs: 30_000, maxAgeMs: 34_000 });
    expect(collector(config, 'nodes')).toMatchObject({ intervalMs: 2000, timeoutMs: 30_000, maxAgeMs: 32_000 });
  });

  it('a configured timeout is kept as it is', () => {
    const file = join(tmp, 'timeout.yaml');
    writeFileSync(file, 'poll:\n  interval: 2s\ncollectors:\n  queues:\n    timeout: 3s\n');
    expect(collector(load(file), 'queues')).toMatchObject({ intervalMs: 4000, timeoutMs: 3000, maxAgeMs: 12_000 });
  });

  it('poll.max_age applies to every collector unless the collector sets its own', () => {
    const file = join(tmp, 'max-age.yaml');
    writeFileSync(file, 'poll:\n  interval: 5s\n  max_age: 1m\ncollectors:\n  nodes:\n    max_age: 10s\n');
    const config = load(file);
    expect(collector(config, 'overview').maxAgeMs).toBe(60_000);
    expect(collector(config, 'nodes').maxAgeMs).toBe(10_000);
  });

  it('collector options get their defaults and keep the common keys out', () => {
    const file = join(tmp, 'options.yaml');
    writeFileSync(file, 'collectors:\n  nodes:\n    rates: false\n    enabled: true\n');
    const options = collector(load(file), 'nodes').options;
    expect(options).toEqual({ rates: false, memory_breakdown: true, memory_breakdown_every: 4 });
  });

  // Issue 8: --poll.interval 200h gave the nodes collector 800h, which Node's timer turned into
  // 1 ms, and the exporter sent thousands of requests a second to the broker.
  it('a derived collector interval over what a timer holds is refused, naming the key it came from', () => {
    const error = configError(() => load(undefined, {}, { pollInterval: '200h' }));
    expect(error.message).toContain('flag --poll.interval: key "poll.interval": makes collectors.limits.interval 800h (4 × poll.interval)');
    expect(error.message).toContain('flag --poll.interval: key "poll.interval": makes collectors.overview.max_age 25d (3 × collectors.overview.interval)');
    expect(error.message).toContain('596h');
  });

  it('a derived max_age over what a timer holds is refused, naming the collector interval', () => {
    const file = join(tmp, 'huge-collector-interval.yaml');
    writeFileSync(file, 'collectors:\n  queues:\n    interval: 300h\n');
    const error = configError(() => load(file));
    expect(error.message).toContain(`config file ${file}: key "collectors.queues.interval": makes collectors.queues.max_age 900h (3 × collectors.queues.interval)`);
  });

  it('an explicit max_age lifts the derived limit', () => {
    const file = join(tmp, 'huge-collector-interval-max-age.yaml');
    writeFileSync(file, 'collectors:\n  queues:\n    interval: 300h\n    max_age: 500h\n');
    expect(collector(load(file), 'queues')).toMatchObject({ intervalMs: 300 * 3_600_000, maxAgeMs: 500 * 3_600_000 });
  });

  it('an interval under one second is refused, from the flag and from the file', () => {
    expect(configError(() => load(undefined, {}, { pollInterval: '500ms' })).message).toContain(
      'flag --poll.interval: key "poll.interval": must be at least 1s',
    );
    const file = join(tmp, 'short-collector-interval.yaml');
    writeFileSync(file, 'collectors:\n  nodes:\n    interval: 10ms\n');
    expect(configError(() => load(file)).message).toContain('key "collectors.nodes.interval": must be at least 1s');
  });

  it('durations with repeated or out-of-order units are refused (1s1s, 30s1m)', () => {
    expect(configError(() => load(undefined, {}, { pollInterval: '1s1s' })).message).toContain('repeats a unit');
    expect(configError(() => load(undefined, {}, { pollInterval: '30s1m' })).message).toContain('repeats a unit');
    expect(load(undefined, {}, { pollInterval: '1d' }).poll.intervalMs).toBe(86_400_000);
  });

  it('durations may combine units and fractions', () => {
    const file = join(tmp, 'durations.yaml');
    writeFileSync(file, 'poll:\n  interval: 1m30s\n  backoff_max: 1.5h\ntarget:\n  timeouts:\n    connect: 250ms\n');
    const config = load(file);
    expect(config.poll.intervalMs).toBe(90_000);
    expect(config.poll.backoffMaxMs).toBe(5_400_000);
    expect(config.target.timeouts.connectMs).toBe(250);
  });
});

describe('redactedConfig', () => {
  it('never contains the password, from the file', () => {
    const config = load(td('good-full.yaml'));
    const text = JSON.stringify(redactedConfig(config));
    expect(config.target.password).toBe('full-file-secret-8f3a');
    expect(text).not.toContain('full-file-secret-8f3a');
    expect(text).toContain('<redacted>');
    // Nor the key material, only the file names.
    expect(text).not.toContain('c2VjcmV0LWtleS1tYXRlcmlhbC03NzE=');
    expect(text).toContain('client-key.pem');
    expect(text).toContain('"username":"monitor"');
  });

  it('never contains the password, from the URL or the environment', () => {
    const fromUrl = load(undefined, { RABBITMQ_URL: 'http://u:url-secret-71@h.example:15672' });
    expect(fromUrl.target.password).toBe('url-secret-71');
    expect(JSON.stringify(redactedConfig(fromUrl))).not.toContain('url-secret-71');
    const fromEnv = load(undefined, { RABBITMQ_PASSWORD: 'env-secret-72' });
    expect(JSON.stringify(redactedConfig(fromEnv))).not.toContain('env-secret-72');
    const fromFile = load(td('good-password-file.yaml'));
    expect(JSON.stringify(redactedConfig(fromFile))).not.toContain('file-secret-0c1d');
  });

  it('keeps the useful parts', () => {
    const redacted = redactedConfig(load(td('good-full.yaml'))) as { target: { url: string; passwordSource: string }; listenAddress: string };
    expect(redacted.target.url).toBe('https://mq.example:15671/rabbit');
    expect(redacted.target.passwordSource).toBe('config file');
    expect(redacted.listenAddress).toBe('127.0.0.1:9999');
  });
});
