import { parseArgs } from 'node:util';
import { ConfigError } from './config-error.js';
import type { ConfigFlags } from './sources.js';
import { NAMING_HELP, NAMING_PROFILES, PROFILE_ENVIRONMENT_HELP } from '../profiles/profiles.js';

/** The command line: the configuration's flags, and those of the process itself. */
export interface CliFlags extends ConfigFlags {
  webConfigFile?: string;
  help: boolean;
  version: boolean;
}

export const USAGE = `Usage: rabbitmq-exporter [flags]

Flags (they override the environment, which overrides the config file):
  --config.file FILE             YAML configuration file (see config.example.yaml); --config FILE too
  --web.listen-address HOST:PORT address to serve /metrics on (default :9419); repeat it to listen
                                 on several, each with the same TLS and users
  --web.config.file FILE         TLS and basic auth, in the Prometheus exporter-toolkit format
  --web.telemetry-path PATH      path of the metrics (default /metrics)
  --log.level LEVEL              trace, debug, info, warn, error, fatal or silent (default info)
  --log.format FORMAT            json or logfmt (default json)
  --poll.interval DURATION       base interval of every collector, e.g. 2s, 15s (default 15s)
  --shard N|auto                 this replica's shard, 0 to total-shards - 1; auto: the ordinal
                                 ending the pod's name (POD_NAME, else HOSTNAME), e.g. exporter-1 (default 0)
  --total-shards N               replicas splitting the targets and their vhosts (default 1)
  --collector.NAME               enable the collector NAME (e.g. --collector.shovels)
  --no-collector.NAME            disable the collector NAME (e.g. --no-collector.connections)
${`  --naming ${NAMING_PROFILES.join('|')}`.padEnd(33)}${NAMING_HELP.replaceAll('\n', `\n${' '.repeat(33)}`)}
  --help                         show this text
  --version                      show the version

Commands:
  hash-password [--cost N]       print a bcrypt hash of a password for the web config's basic_auth_users

Environment: RABBITMQ_URL, RABBITMQ_USERNAME, RABBITMQ_PASSWORD, RABBITMQ_PASSWORD_FILE, EXPORTER_NAMING.
${PROFILE_ENVIRONMENT_HELP}
`;

/** `--collector.NAME` and `--no-collector.NAME`, as node_exporter and the exporter-toolkit spell them. */
const COLLECTOR_FLAG = /^--(no-)?collector\.([A-Za-z0-9_-]+)$/;

export function parseFlags(argv: readonly string[]): CliFlags {
  try {
    const collectors: Record<string, boolean> = {};
    const rest = argv.filter((arg) => {
      const match = COLLECTOR_FLAG.exec(arg);
      if (match) collectors[match[2]!] = match[1] === undefined;
      return !match;
    });
    const { values } = parseArgs({
      args: rest,
      strict: true,
      allowPositionals: false,
      options: {
        'config.file': { type: 'string' },
        config: { type: 'string' },
        'web.listen-address': { type: 'string', multiple: true },
        'web.config.file': { type: 'string' },
        'web.telemetry-path': { type: 'string' },
        'log.level': { type: 'string' },
        'log.format': { type: 'string' },
        'poll.interval': { type: 'string' },
        shard: { type: 'string' },
        'total-shards': { type: 'string' },
        naming: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    });
    const config = values['config.file'] ?? values.config;
    if (values['config.file'] !== undefined && values.config !== undefined && values.config !== values['config.file']) {
      throw new Error('--config.file and --config name two files: give one (--config is the old name of --config.file)');
    }
    return {
      config,
      listenAddresses: values['web.listen-address'],
      webConfigFile: values['web.config.file'],
      telemetryPath: values['web.telemetry-path'],
      logLevel: values['log.level'],
      logFormat: values['log.format'],
      pollInterval: values['poll.interval'],
      shard: values.shard,
      totalShards: values['total-shards'],
      naming: values.naming,
      collectors,
      help: values.help ?? false,
      version: values.version ?? false,
    };
  } catch (error) {
    throw new ConfigError(`command line: ${(error as Error).message}\n\n${USAGE}`);
  }
}
