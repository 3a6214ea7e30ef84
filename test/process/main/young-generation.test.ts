// The built exporter, started with Node's flags (src/heap-size.ts, NODE_FLAGS), keeps V8's young
// generation within 8 MiB through start-up, queue polls and scrapes, on each Node the tests run
// on; an operator's own flag replaces the size (V8's own: module loading alone took it to 32 MiB).
import { afterEach, expect, it } from 'vitest';
import { samples } from '../../support/parse-exposition.js';
import { eventually } from '../../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { startSimulator, type Simulator } from '../../support/management-simulator.js';

let sim: Simulator | undefined;
let exporter: ExporterProcess | undefined;
afterEach(async () => {
  await exporter?.stop();
  await sim?.close();
});

const MiB = 1024 * 1024;
const YOUNG = 'nodejs_heap_space_size_total_bytes{space="new"}';
const LAST_QUEUE_POLL = 'rabbitmq_exporter_collector_last_success_timestamp_seconds{collector="queues"}';

/** The exporter's young generation's largest size seen over three queue polls of 3,000 queues, scraped in between. */
async function youngGenerationOverPolls(nodeArgs?: string[]): Promise<number> {
  const running = await startSimulator({ queues: 3000, vhosts: 3 });
  sim = running;
  exporter = await startExporter({
    configYaml: ['poll:', '  interval: 2s', 'target:', `  url: ${running.url}`, `  username: ${running.username}`, `  password: ${running.password}`, ''].join('\n'),
    ...(nodeArgs ? { nodeArgs } : {}),
  });
  const exp = exporter;
  const polls = new Set<number>();
  let largest = 0;
  await eventually(
    async () => {
      const values = samples((await exp.metrics()).text);
      largest = Math.max(largest, values.get(YOUNG) ?? Number.NaN);
      const last = values.get(LAST_QUEUE_POLL);
      if (last !== undefined) polls.add(last);
      return polls.size >= 3 ? true : undefined;
    },
    60_000,
    'three queue polls',
  );
  return largest;
}

it('stays within 8 MiB over start-up, polls and scrapes', async () => {
  expect(await youngGenerationOverPolls()).toBeLessThanOrEqual(8 * MiB);
}, 90_000);

it("is the operator's to size with a flag of their own", async () => {
  expect(await youngGenerationOverPolls(['--max-semi-space-size=16'])).toBeGreaterThan(8 * MiB);
}, 90_000);
