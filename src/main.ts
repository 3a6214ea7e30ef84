#!/usr/bin/env node
import type { AddressInfo } from 'node:net';
import { parseFlags, USAGE } from './cli/args.js';
import { ConfigError } from './config/config-error.js';
import { loadConfig, redactedConfig } from './config/load-config.js';
import { parseListenAddress } from './config/schema.js';
import { createLogger } from './log.js';
import { newHttpCounters } from './self/exporter-metrics.js';
import { createApp } from './server/app.js';
import { createHttpServer } from './server/http-server.js';
import { ProcessMetrics } from './self/process-metrics.js';
import { Target } from './target.js';
import { VERSION } from './version.js';

async function main(): Promise<void> {
  let config;
  try {
    const flags = parseFlags(process.argv.slice(2));
    if (flags.help) {
      process.stdout.write(USAGE);
      return;
    }
    if (flags.version) {
      process.stdout.write(`rabbitmq-exporter ${VERSION}\n`);
      return;
    }
    config = loadConfig(flags, process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`rabbitmq-exporter: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }

  const log = createLogger(config.logLevel);
  log.info({ version: VERSION, config: redactedConfig(config) }, 'starting');

  const http = newHttpCounters();
  const target = new Target(config, new ProcessMetrics(), log, http);
  const app = createApp([target], log, { maxConcurrent: config.web.maxConcurrentScrapes, counters: http });
  const server = createHttpServer(app, config.web, http, log);
  const { host, port } = parseListenAddress(config.listenAddress);
  if (host) server.listen(port, host);
  else server.listen(port);
  server.on('error', (error) => {
    log.fatal({ err: error, listen_address: config.listenAddress }, 'cannot listen');
    process.exit(1);
  });
  server.on('listening', () => {
    const address = server.address() as AddressInfo;
    log.info({ address: address.address, port: address.port }, 'serving /metrics');
  });
  // A bug in one poll must not take the exporter down with it; it is logged and polling goes on.
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection'));
  target.start();

  const shutdown = (signal: string) => {
    log.info({ signal }, 'stopping');
    server.close();
    server.closeAllConnections();
    target.stop().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  // SIGHUP's default action ends the process without a word; until reload exists it is ignored, saying so.
  process.on('SIGHUP', () => log.warn({ signal: 'SIGHUP' }, 'SIGHUP ignored: this version cannot reload its configuration; restart it to apply a new one'));
}

main().catch((error: unknown) => {
  process.stderr.write(`rabbitmq-exporter: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
