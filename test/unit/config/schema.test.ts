import { describe, expect, it } from 'vitest';
import { brokerUrl, configSchema, duration, parseListenAddress } from '../../../src/config/schema.js';

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

  it('duration parses into milliseconds and reports the parser message', () => {
    expect(duration.parse('1m30s')).toBe(90_000);
    const bad = duration.safeParse('soon');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe('"soon" is not a duration like 500ms, 15s, 1m30s, 2h or 1d');
  });

  it('the whole schema fills defaults from an empty object', () => {
    const parsed = configSchema().parse({});
    expect(parsed.web.listen_address).toBe(':9419');
    expect(parsed.poll.interval).toBe(15_000);
    expect(parsed.poll.max_age).toBeUndefined();
    expect(parsed.target.tls.insecure_skip_verify).toBe(false);
    expect(parsed.target.timeouts.request).toBe(60_000);
  });

  it('is strict at every level', () => {
    for (const input of [{ extra: 1 }, { web: { port: 1 } }, { target: { tls: { verify: false } } }, { target: { timeouts: { read: '1s' } } }]) {
      const result = configSchema().safeParse(input);
      expect(result.success, JSON.stringify(input)).toBe(false);
      expect(result.error?.issues[0]?.code).toBe('unrecognized_keys');
    }
  });
});
