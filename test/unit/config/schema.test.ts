import { describe, expect, it } from 'vitest';
import { brokerUrl, brokerUrlProblem, configSchema, parseListenAddress } from '../../../src/config/schema.js';
import { duration } from '../../../src/model/duration.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';

describe('parseListenAddress', () => {
  it.each([
    [':9419', { host: '', port: 9419 }],
    ['0.0.0.0:9419', { host: '0.0.0.0', port: 9419 }],
    ['localhost:80', { host: 'localhost', port: 80 }],
    ['[::1]:9419', { host: '::1', port: 9419 }],
    ['[::]:0', { host: '::', port: 0 }],
    [':65535', { host: '', port: 65535 }],
  ])('%s', (text, expected) => {
    expect(parseListenAddress(text)).toEqual(expected);
  });

  it.each(['9419', 'localhost', ':65536', ':123456', '::1:9419', 'host:port', '[::1]', ''])('refuses %j', (text) => {
    expect(() => parseListenAddress(text)).toThrow('is not HOST:PORT or :PORT');
  });
});

describe('schema pieces', () => {
  it('brokerUrl accepts http and https only', () => {
    expect(brokerUrl.safeParse('http://h:15672').success).toBe(true);
    expect(brokerUrl.safeParse('https://h:15671/prefix').success).toBe(true);
    expect(brokerUrl.safeParse('ftp://h').success).toBe(false);
    expect(brokerUrl.safeParse('amqp://h:5672').success).toBe(false);
    expect(brokerUrl.safeParse('h:15672').success).toBe(false);
    expect(brokerUrl.safeParse('not a url').success).toBe(false);
  });

  it.each([
    ['http://user:pw%zz@h:15672', 'not valid percent-encoding'],
    ['http://user:12/secret@h', 'has an "@" after the host'],
    ['http://user:12?secret@h', 'has an "@" after the host'],
    ['http://h:15672/a@b', 'has an "@" after the host'],
    ['http://u:se#cret@h', 'does not parse as a URL'],
    ['http://h:15672/?vhost=x', 'must not have a query'],
    ['http://h:15672/#top', 'must not have a query'],
    ['http://h:15672/?', 'must not have a query'],
    ['http://h:15672/a%zz', 'the path in it is not valid percent-encoding'],
    ['http:h:15672', 'must be an http:// or https:// URL'],
    ['http:/h', 'must be an http:// or https:// URL'],
    ['file:///etc/passwd', 'must be an http:// or https:// URL'],
    ['javascript://h', 'must be an http:// or https:// URL'],
    ['http://', 'does not parse as a URL'],
  ])('brokerUrl refuses %j, without repeating it', (text, message) => {
    const problem = brokerUrlProblem(text);
    expect(problem).toContain(message);
    for (const part of ['secret', 'pw%zz', 'cret', 'vhost=x', 'top', 'passwd']) expect(problem).not.toContain(part);
    expect(brokerUrl.safeParse(text).success).toBe(false);
  });

  it.each(['http://h:15672', 'HTTPS://h:15671/rabbit/', 'http://u%40corp:p%3As%2Fs%25@h:15672', 'http://[::1]:15672', 'http://u@h'])('brokerUrl accepts %j', (text) => {
    expect(brokerUrlProblem(text)).toBeUndefined();
  });

  it('duration parses into milliseconds and reports the parser message', () => {
    expect(duration.parse('1m30s')).toBe(90_000);
    const bad = duration.safeParse('soon');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe('"soon" is not a duration like 500ms, 15s, 1m30s, 2h or 1d');
  });

  it('the whole schema fills defaults from an empty object', () => {
    const parsed = configSchema(COLLECTORS).parse({});
    expect(parsed.web.listen_address).toEqual([':9419']);
    expect(parsed.poll.interval).toBe(15_000);
    expect(parsed.poll.max_age).toBeUndefined();
    expect(parsed.target.tls.insecure_skip_verify).toBe(false);
    expect(parsed.target.timeouts.request).toBe(60_000);
  });

  it('is strict at every level', () => {
    for (const input of [{ extra: 1 }, { web: { port: 1 } }, { target: { tls: { verify: false } } }, { target: { timeouts: { read: '1s' } } }]) {
      const result = configSchema(COLLECTORS).safeParse(input);
      expect(result.success, JSON.stringify(input)).toBe(false);
      expect(result.error?.issues[0]?.code).toBe('unrecognized_keys');
    }
  });
});
