// The configuration loader on good files: every default, and every key read.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../../../src/collectors/registry.js';
import { REPO_ROOT } from '../../../support/fixtures.js';
import { td, load, collector } from './load-helpers.js';

beforeAll(() => {
  expect(process.cwd().replace(/\/$/, '')).toBe(REPO_ROOT.replace(/\/$/, ''));
});

describe('good files', () => {
  it('an empty file gives every default', () => {
    const config = load(td('good-empty.yaml'));
    expect(config.configFile).toBe(td('good-empty.yaml'));
    expect(config.listenAddresses).toEqual([':9419']);
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
      pollThreadFromSeries: 500_000,
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
    expect(config.listenAddresses).toEqual(['127.0.0.1:9999']);
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
      pollThreadFromSeries: 500_000,
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
