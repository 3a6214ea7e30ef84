import { describe, expect, it } from 'vitest';
import { parseFlags, USAGE } from '../../../src/config/args.js';
import { ConfigError } from '../../../src/config/config-error.js';

describe('parseFlags', () => {
  it('no flags', () => {
    expect(parseFlags([])).toEqual({
      config: undefined,
      listenAddresses: undefined,
      webConfigFile: undefined,
      telemetryPath: undefined,
      logLevel: undefined,
      logFormat: undefined,
      pollInterval: undefined,
      collectors: {},
      help: false,
      version: false,
    });
  });

  it('--config.file, with --config as its old name; two different files are refused', () => {
    expect(parseFlags(['--config.file', 'a.yaml']).config).toBe('a.yaml');
    expect(parseFlags(['--config=a.yaml']).config).toBe('a.yaml');
    expect(parseFlags(['--config=a.yaml', '--config.file=a.yaml']).config).toBe('a.yaml');
    expect(() => parseFlags(['--config=a.yaml', '--config.file=b.yaml'])).toThrow(/--config.file and --config name two files/);
  });

  it('--collector.NAME and --no-collector.NAME, the last of each name winning', () => {
    expect(parseFlags(['--collector.shovels', '--no-collector.connections', '--log.level=debug', '--collector.connections']).collectors).toEqual({ shovels: true, connections: true });
    expect(parseFlags(['--no-collector.queues']).collectors).toEqual({ queues: false });
  });

  it('--web.listen-address may be repeated: each address, in order', () => {
    expect(parseFlags(['--web.listen-address', ':9419', '--web.listen-address=127.0.0.1:9420']).listenAddresses).toEqual([':9419', '127.0.0.1:9420']);
  });

  it('every flag, in both --flag value and --flag=value forms', () => {
    expect(
      parseFlags([
        '--config', 'c.yaml', '--web.listen-address=:9500', '--web.config.file', 'web.yml', '--web.telemetry-path=/prom',
        '--log.level', 'debug', '--log.format=logfmt', '--poll.interval=2s', '--version',
      ]),
    ).toEqual({
      config: 'c.yaml', listenAddresses: [':9500'], webConfigFile: 'web.yml', telemetryPath: '/prom',
      logLevel: 'debug', logFormat: 'logfmt', pollInterval: '2s', collectors: {}, help: false, version: true,
    });
  });

  it('-h and --help', () => {
    expect(parseFlags(['-h']).help).toBe(true);
    expect(parseFlags(['--help']).help).toBe(true);
  });

  it.each([[['--unknown']], [['positional']], [['--config']], [['--poll-interval', '5s']]])('refuses %j with the usage text', (argv) => {
    let error: unknown;
    try {
      parseFlags(argv);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^command line: /);
    expect((error as Error).message).toContain(USAGE);
  });

  it('the usage text lists every flag and the environment variables', () => {
    for (const flag of ['--config', '--web.listen-address', '--log.level', '--poll.interval', '--help', '--version']) expect(USAGE).toContain(flag);
    for (const env of ['RABBITMQ_URL', 'RABBITMQ_USERNAME', 'RABBITMQ_PASSWORD', 'RABBITMQ_PASSWORD_FILE']) expect(USAGE).toContain(env);
  });
});
