// The exporter's HTTP side as the built exporter runs it (dist/src: createApp in a WebServer),
// serving a stub target whose first snapshot is large (argv[3] MB), for tests
// with clients that never read. Run it with --expose-gc. argv[2]: the WebLimits as JSON.
// Prints {"port":n} once listening, then answers each command read on stdin with one JSON line:
//   publish  a small snapshot replaces the large one          {"published":true}
//   status   after a full garbage collection                  {"connections":n,"counters":{...},"largeFreed":bool}
import { createInterface } from 'node:readline';
import pino from 'pino';
import { defineMetrics } from '../../../dist/src/model/metric-def.js';
import { SampleSink } from '../../../dist/src/exposition/sample-sink.js';
import { newHttpCounters } from '../../../dist/src/pipeline/own-series.js';
import { createApp } from '../../../dist/src/server/app.js';
import { WebServer } from '../../../dist/src/server/web-server.js';
import { SnapshotStore } from '../../../dist/src/pipeline/snapshot-store.js';
import { TargetState } from '../../../dist/src/pipeline/target-state.js';

const web = JSON.parse(process.argv[2]);
const largeBytes = Number(process.argv[3]) * 1024 * 1024;
const M = defineMetrics('queues', {
  messages: { name: 'rabbitmq_test_messages', type: 'gauge', labels: ['queue'], help: 'Messages.' },
});

function families(bytes) {
  const sink = new SampleSink();
  const line = 'rabbitmq_test_messages{queue="q-0000000"} 1\n'.length;
  for (let i = 0; i * line < bytes; i++) sink.add(M.messages, [`q-${String(i).padStart(7, '0')}`], 1);
  return sink.finish();
}

const log = pino({ level: 'silent' });
const counters = newHttpCounters();
const state = new TargetState('default', 'http://broker.invalid:15672');
state.register('queues', 60_000, 3_600_000);
const store = new SnapshotStore(state, { requests: 0, bytesRead: 0 }, counters, { families: async () => [] });

/** The large snapshot's chunks: freed only once nothing (no socket either) holds any of them. */
const largeChunks = publishLarge();
await store.rebuild();

function publishLarge() {
  const large = families(largeBytes);
  state.succeeded('queues', large, 0.1, 0);
  return large.flatMap((family) => family.chunks.map((chunk) => new WeakRef(chunk.buffer)));
}

const served = { name: state.name, ready: true, exposition: (gzipFormat) => store.forScrape(gzipFormat), status: () => undefined };
const app = createApp(() => [served], log, { scrapes: { maxConcurrent: web.maxConcurrentScrapes, counters } });
const listening = await WebServer.start(app, { addresses: [{ host: '127.0.0.1', port: 0 }], log, limits: web, counters });
const [server] = listening.servers;
process.stdout.write(`${JSON.stringify({ port: listening.addresses[0].port })}\n`);

const connections = () => new Promise((resolve, reject) => server.getConnections((error, n) => (error ? reject(error) : resolve(n))));

for await (const command of createInterface({ input: process.stdin })) {
  if (command === 'publish') {
    state.succeeded('queues', families(1024), 0.1, 0);
    await store.rebuild();
    process.stdout.write(`${JSON.stringify({ published: true })}\n`);
  } else if (command === 'status') {
    // Twice, with a turn of the event loop between: buffers freed by the first go in the second.
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
    globalThis.gc();
    process.stdout.write(`${JSON.stringify({ connections: await connections(), counters, largeFreed: largeChunks.every((chunk) => chunk.deref() === undefined) })}\n`);
  }
}
server.close();
server.closeAllConnections();
