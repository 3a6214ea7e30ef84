#!/usr/bin/env node
// First: modules are evaluated in import order, and Node's default for SIGHUP kills the process.
import { signals } from './signals-installed.js';
import { parseFlags, USAGE, type CliFlags } from './config/args.js';
import { hashPassword } from './server/hash-password.js';
import { ConfigError } from './config/config-error.js';
import type { ExporterConfig } from './config/exporter-config.js';
import { redactedConfig, targetCredentials } from './config/redacted-config.js';
import { parseListenAddress } from './config/schema.js';
import { createLogger } from './log.js';
import { Redactor } from './broker/redactor.js';
import { createApp } from './server/app.js';
import { WebConfigError } from './server/web-config.js';
import { webGuard } from './server/web-guard.js';
import { WebServer } from './server/web-server.js';
import { newHttpCounters } from './pipeline/own-series.js';
import { ProcessMetrics } from './pipeline/process-metrics.js';
import { Exporter, readConfigFromDisk } from './exporter.js';
import { versionText } from './pipeline/version.js';
import { startingFields } from './starting-line.js';
import { profileStartupWarnings } from './profiles/profiles.js';
import { limitHeapGrowth } from './heap-size.js';

/** How long SIGTERM waits for the targets' polls to end and their pools to close: the process exits anyway. */
const STOP_TARGETS_MS = 1000;

async function main(): Promise<void> {
  limitHeapGrowth();
  if (process.argv[2] === 'hash-password') {
    process.exitCode = await hashPassword(process.argv.slice(3), { input: process.stdin, out: process.stdout, err: process.stderr });
    return;
  }
  let config: ExporterConfig;
  let flags: CliFlags;
  try {
    flags = parseFlags(process.argv.slice(2));
    if (flags.help) {
      process.stdout.write(USAGE);
      return;
    }
    if (flags.version) {
      process.stdout.write(versionText());
      return;
    }
    config = await readConfigFromDisk(flags, process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`rabbitmq-exporter: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }

  // The log's last guard removes the credentials in force, which a reload may change.
  const startingRedactor = new Redactor(config.targets.map((setup) => targetCredentials(setup.target)));
  let exporter: Exporter | undefined;
  const log = createLogger(config.logLevel, { format: config.logFormat, redactor: () => exporter?.redactor ?? startingRedactor });
  // A short line at info, as the exporter-toolkit's exporters start; the whole configuration in force (no secret) at debug.
  log.info(startingFields(config, flags), 'starting');
  log.debug({ config: redactedConfig(config) }, 'configuration in force');
  for (const warning of profileStartupWarnings(config.profileVariables, config.configFile)) log.warn(warning.fields, warning.message);

  const http = newHttpCounters();
  exporter = new Exporter(config, flags, process.env, new ProcessMetrics(), log, http);
  const running = exporter;
  let web: WebServer | undefined;
  const app = createApp(() => running.targets, log, {
    telemetryPath: config.telemetryPath,
    guard: webGuard(() => web?.current(), { counters: http }),
    reload: () => running.reload(),
    scrapes: { maxConcurrent: config.web.maxConcurrentScrapes, counters: http },
    ownMetrics: () => running.ownMetrics(),
    perNodeScrapes: config.perNodeScrapes,
  });
  // Targets are made in slices while the server starts listening and answers.
  const started = running.start();
  try {
    const addresses = config.listenAddresses.map((text) => parseListenAddress(text));
    web = await WebServer.start(app, { addresses, webConfigFile: flags.webConfigFile, log, limits: config.web, counters: http });
  } catch (error) {
    if (error instanceof WebConfigError) {
      process.stderr.write(`rabbitmq-exporter: ${error.message}\n`);
      process.exit(2);
    }
    log.fatal({ err: error, listen_addresses: config.listenAddresses }, 'cannot listen');
    process.exit(1);
  }
  const listening = web;
  for (const { address, port } of listening.addresses) {
    log.info({ address, port, protocol: listening.protocol, web_config_file: flags.webConfigFile ?? null }, 'serving /metrics');
  }
  // A bug in one poll must not take the exporter down with it; it is logged and polling goes on.
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection'));

  // Responses in flight finish, polls are cancelled, connections to the broker close; then exit.
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    setTimeout(() => {
      log.warn({ signal }, 'stopping took more than 10 s; exiting anyway');
      process.exit(1);
    }, 10_000).unref();
    const targetsStopped = Promise.race([running.stop(), new Promise((done) => setTimeout(done, STOP_TARGETS_MS).unref())]);
    void Promise.allSettled([listening.close(5000), targetsStopped]).then(() => {
      log.info({ signal }, 'stopped');
      process.exit(0);
    });
  };
  signals.onStop(shutdown);
  await started;
  // A SIGHUP that came during start-up is applied now.
  signals.onReload(() => {
    log.info({ signal: 'SIGHUP' }, 'reloading the configuration');
    void running.reload();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`rabbitmq-exporter: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
