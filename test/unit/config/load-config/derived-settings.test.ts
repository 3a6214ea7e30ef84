// The configuration loader's derived collector settings, and the redacted configuration it logs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POLL_THREAD_FROM_SERIES } from '../../../../src/config/collector-settings.js';
import { redactedConfig } from '../../../../src/config/redacted-config.js';
import { td, load, configError, collector, fileTempDir } from './load-helpers.js';

const tmp = fileTempDir();

describe('derived collector settings', () => {
  it('interval defaults to multiplier × poll.interval, timeout to the interval, max_age to 3 × interval', () => {
    const file = join(tmp(), 'derived.yaml');
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
    const file = join(tmp(), 'timeout.yaml');
    writeFileSync(file, 'poll:\n  interval: 2s\ncollectors:\n  queues:\n    timeout: 3s\n');
    expect(collector(load(file), 'queues')).toMatchObject({ intervalMs: 4000, timeoutMs: 3000, maxAgeMs: 12_000 });
  });

  it('poll.max_age applies to every collector unless the collector sets its own', () => {
    const file = join(tmp(), 'max-age.yaml');
    writeFileSync(file, 'poll:\n  interval: 5s\n  max_age: 1m\ncollectors:\n  nodes:\n    max_age: 10s\n');
    const config = load(file);
    expect(collector(config, 'overview').maxAgeMs).toBe(60_000);
    expect(collector(config, 'nodes').maxAgeMs).toBe(10_000);
  });

  it('collector options get their defaults and keep the common keys out', () => {
    const file = join(tmp(), 'options.yaml');
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
    const file = join(tmp(), 'huge-collector-interval.yaml');
    writeFileSync(file, 'collectors:\n  queues:\n    interval: 300h\n');
    const error = configError(() => load(file));
    expect(error.message).toContain(`config file ${file}: key "collectors.queues.interval": makes collectors.queues.max_age 900h (3 × collectors.queues.interval)`);
  });

  it('poll_thread: true puts a collector in the poll thread from its first poll, auto (the default) once a poll is big, false never', () => {
    const file = join(tmp(), 'poll-thread.yaml');
    writeFileSync(file, 'collectors:\n  queues:\n    poll_thread: true\n  nodes:\n    poll_thread: false\n  channels:\n    poll_thread: auto\n    poll_thread_from_series: 1000\n  connections:\n    poll_thread: auto\n');
    const config = load(file);
    expect(collector(config, 'queues').pollThreadFromSeries).toBe(0);
    expect(collector(config, 'nodes').pollThreadFromSeries).toBeUndefined();
    expect(collector(config, 'channels').pollThreadFromSeries).toBe(1000);
    expect(collector(config, 'connections').pollThreadFromSeries).toBe(POLL_THREAD_FROM_SERIES);
    expect(collector(config, 'queues').options).not.toHaveProperty('poll_thread');
    expect(collector(config, 'channels').options).not.toHaveProperty('poll_thread_from_series');
    // By default every collector but the overview is auto.
    const byDefault = load(undefined).collectors;
    expect(byDefault.filter((c) => c.pollThreadFromSeries !== POLL_THREAD_FROM_SERIES).map((c) => c.name)).toEqual(['overview']);
    expect(collector(load(undefined), 'overview').pollThreadFromSeries).toBeUndefined();
  });

  it('poll_thread_from_series with poll_thread true or false is refused, naming both keys', () => {
    const file = join(tmp(), 'poll-thread-both.yaml');
    writeFileSync(file, 'collectors:\n  queues:\n    poll_thread: true\n    poll_thread_from_series: 1000\n');
    expect(configError(() => load(file)).message).toContain(
      `config file ${file}: key "collectors.queues.poll_thread_from_series": applies only with collectors.queues.poll_thread: auto (the default; it is true); set that key to auto or remove this one`,
    );
    writeFileSync(file, 'collectors:\n  queues:\n    poll_thread: false\n    poll_thread_from_series: 1000\n');
    expect(configError(() => load(file)).message).toContain('applies only with collectors.queues.poll_thread: auto (the default; it is false)');
    // Alone it sets the default's threshold.
    writeFileSync(file, 'collectors:\n  queues:\n    poll_thread_from_series: 1000\n');
    expect(collector(load(file), 'queues').pollThreadFromSeries).toBe(1000);
  });

  it('the overview cannot poll in the poll thread: the key is named', () => {
    const file = join(tmp(), 'poll-thread-overview.yaml');
    writeFileSync(file, 'collectors:\n  overview:\n    poll_thread: true\n');
    expect(configError(() => load(file)).message).toContain(`config file ${file}: key "collectors.overview.poll_thread": the overview collector polls on the main thread`);
    writeFileSync(file, 'collectors:\n  overview:\n    poll_thread_from_series: 10\n');
    expect(configError(() => load(file)).message).toContain(`config file ${file}: key "collectors.overview.poll_thread_from_series": the overview collector polls on the main thread`);
  });

  it('an explicit max_age lifts the derived limit', () => {
    const file = join(tmp(), 'huge-collector-interval-max-age.yaml');
    writeFileSync(file, 'collectors:\n  queues:\n    interval: 300h\n    max_age: 500h\n');
    expect(collector(load(file), 'queues')).toMatchObject({ intervalMs: 300 * 3_600_000, maxAgeMs: 500 * 3_600_000 });
  });

  it('an interval under one second is refused, from the flag and from the file', () => {
    expect(configError(() => load(undefined, {}, { pollInterval: '500ms' })).message).toContain(
      'flag --poll.interval: key "poll.interval": must be at least 1s',
    );
    const file = join(tmp(), 'short-collector-interval.yaml');
    writeFileSync(file, 'collectors:\n  nodes:\n    interval: 10ms\n');
    expect(configError(() => load(file)).message).toContain('key "collectors.nodes.interval": must be at least 1s');
  });

  it('durations with repeated or out-of-order units are refused (1s1s, 30s1m)', () => {
    expect(configError(() => load(undefined, {}, { pollInterval: '1s1s' })).message).toContain('repeats a unit');
    expect(configError(() => load(undefined, {}, { pollInterval: '30s1m' })).message).toContain('repeats a unit');
    expect(load(undefined, {}, { pollInterval: '1d' }).poll.intervalMs).toBe(86_400_000);
  });

  it('durations may combine units and fractions', () => {
    const file = join(tmp(), 'durations.yaml');
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
    const redacted = redactedConfig(load(td('good-full.yaml'))) as { target: { url: string; passwordSource: string }; listenAddresses: string[] };
    expect(redacted.target.url).toBe('https://mq.example:15671/rabbit');
    expect(redacted.target.passwordSource).toBe('config file');
    expect(redacted.listenAddresses).toEqual(['127.0.0.1:9999']);
  });
});
