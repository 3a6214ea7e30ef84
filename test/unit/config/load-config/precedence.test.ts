// The configuration loader's precedence: flags over environment over file over defaults.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { td, load, configError, collector, fileTempDir } from './load-helpers.js';

const tmp = fileTempDir();

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
    const config = load(td('good-full.yaml'), {}, { listenAddresses: [':9500'], logLevel: 'warn' });
    expect(config.listenAddresses).toEqual([':9500']);
    expect(config.logLevel).toBe('warn');
  });

  it('a bad flag value is reported as coming from the flag', () => {
    const error = configError(() => load(td('good-poll-interval.yaml'), {}, { pollInterval: 'fast' }));
    expect(error.message).toContain('flag --poll.interval: key "poll.interval"');
    expect(error.message).toContain('"fast" is not a duration');
    expect(error.message).not.toContain('config file');
  });

  it('a bad listen address flag names the flag', () => {
    const error = configError(() => load(undefined, {}, { listenAddresses: ['localhost'] }));
    expect(error.message).toBe('invalid configuration:\n  flag --web.listen-address: key "web.listen_address": must be HOST:PORT or :PORT, e.g. :9419 (not "localhost")');
  });

  it('--web.listen-address repeated: every address, in order; a bad one names the flag and its position', () => {
    expect(load(undefined, {}, { listenAddresses: ['127.0.0.1:9419', '[::1]:9420'] }).listenAddresses).toEqual(['127.0.0.1:9419', '[::1]:9420']);
    // Flags replace the file's list whole, as they replace any other key.
    const file = join(tmp(), 'listen-list.yaml');
    writeFileSync(file, 'web:\n  listen_address: [":9500", ":9501"]\n');
    expect(load(file).listenAddresses).toEqual([':9500', ':9501']);
    expect(load(file, {}, { listenAddresses: [':9600'] }).listenAddresses).toEqual([':9600']);
    expect(configError(() => load(undefined, {}, { listenAddresses: [':9419', 'localhost:x'] })).message).toBe(
      'invalid configuration:\n  flag --web.listen-address: key "web.listen_address[1]": must be HOST:PORT or :PORT, e.g. :9419 (not "localhost:x")',
    );
    expect(configError(() => load(undefined, {}, { listenAddresses: [':9419', ':9419'] })).message).toContain('flag --web.listen-address: key "web.listen_address[1]": ":9419" is listed twice');
    // Port 0 twice is two listeners, each on a port the system picks.
    expect(load(undefined, {}, { listenAddresses: ['127.0.0.1:0', '127.0.0.1:0'] }).listenAddresses).toEqual(['127.0.0.1:0', '127.0.0.1:0']);
  });

  it("web.listen_address in the file: one address or a list; an empty list or a number is refused with the file's name", () => {
    const file = join(tmp(), 'listen-bad.yaml');
    writeFileSync(file, 'web:\n  listen_address: []\n');
    expect(configError(() => load(file)).message).toBe(`invalid configuration:\n  config file ${file}: key "web.listen_address": lists no address: give at least one, e.g. :9419`);
    writeFileSync(file, 'web:\n  listen_address: [":9500", 9501]\n');
    expect(configError(() => load(file)).message).toContain(`config file ${file}: key "web.listen_address": must be HOST:PORT or :PORT, e.g. :9419, or a list of them`);
    writeFileSync(file, 'web:\n  listen_address: "127.0.0.1:9419"\n');
    expect(load(file).listenAddresses).toEqual(['127.0.0.1:9419']);
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
    const secret = join(tmp(), 'env-secret');
    writeFileSync(secret, 'env-file-secret\r\n');
    const config = load(td('good-poll-interval.yaml'), { RABBITMQ_PASSWORD_FILE: secret });
    expect(config.target.password).toBe('env-file-secret');
    expect(config.target.passwordSource).toBe(`file ${secret}`);
  });

  it('only one trailing newline is stripped from a password file', () => {
    const secret = join(tmp(), 'two-newlines');
    writeFileSync(secret, ' spaced pass \n\n');
    expect(load(undefined, { RABBITMQ_PASSWORD_FILE: secret }).target.password).toBe(' spaced pass \n');
  });

  it('an unreadable RABBITMQ_PASSWORD_FILE names the variable and the key', () => {
    const missing = join(tmp(), 'no-such-secret');
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
