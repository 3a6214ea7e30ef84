#!/usr/bin/env node
/**
 * `npm run demo`: the exporter, as built (dist/src/main.js), watching a simulated cluster of 1,000
 * queues on three nodes whose traffic moves (cluster.ts), so its series, landing page and the
 * shipped dashboards can be seen without a RabbitMQ. Flags are the exporter's own
 * (`npm run demo -- --web.listen-address :9500`). Refused when a broker is configured.
 *
 * Not part of the image nor of the npm package: the simulator is built from the recordings in
 * test/fixtures, which neither carries; the demo runs from a clone.
 */
// First, as in the exporter: a SIGTERM while the simulator starts stops the process the exporter's way.
import '../src/signals-installed.js';
import { parseFlags } from '../src/config/args.js';
import { ConfigError } from '../src/config/config-error.js';
import { startDemoCluster } from './cluster.js';
import { configuredBroker, refusal } from './configured-broker.js';

function fail(message: string): never {
  process.stderr.write(`rabbitmq-exporter: ${message}\n`);
  process.exit(2);
}

let flags: ReturnType<typeof parseFlags>;
let broker: string | undefined;
try {
  flags = parseFlags(process.argv.slice(2));
  broker = flags.help || flags.version ? undefined : configuredBroker(flags, process.env);
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}
if (broker) fail(refusal(broker));

if (!flags.help && !flags.version) {
  const cluster = await startDemoCluster();
  // The exporter reads its target from the environment like any other: here, the simulator's.
  Object.assign(process.env, { RABBITMQ_URL: cluster.sim.url, RABBITMQ_USERNAME: cluster.sim.username, RABBITMQ_PASSWORD: cluster.sim.password });
  process.stderr.write(`rabbitmq-exporter demo: watching a SIMULATED cluster (1,000 queues on 3 nodes, made-up traffic) at ${cluster.sim.url}\n`);
}
await import('../src/main.js');
