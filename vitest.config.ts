import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { selectedVersions } from './test/harness/broker/versions.js';

// `unit` needs nothing but Node and runs the code in-process. `process` runs the BUILT exporter
// (dist/, made by `npm run build:exporter`, which `npm test` runs first) as a child process against
// simulated brokers: start-up, signals, its web server, what it logs. One `broker-<version>`
// project per RabbitMQ version selected by BROKER_VERSIONS (default all: 3.10, 4.0, 4.3; see
// test/harness/broker/versions.ts): each starts a real node of its version
// (test/harness/broker/broker.ts) and runs every broker test on it, one file at a time (the files
// share the node); skipped, loudly, when that version cannot run here. In one vitest process every
// project's files go through one pool, so `npm test` runs each broker version in a vitest of its
// own, side by side (test/runner/run-tests.ts). The other projects' files run two at a time at least:
// most of their time is spent waiting for processes they start.
// `storefront` is the separate storefront package's own config (storefront/vitest.config.ts).
const setupFiles = ['test/support/file-timings.ts'];
// A hang guard, not a speed check (no test is timed), for tests and their hooks alike: `.ci/run` runs both Nodes' lanes side by side
// on 2 cores (six vitest processes, four RabbitMQ nodes), where a CPU-bound unit test of 1-2 s alone
// took 5-7 s and vitest's default of 5 s failed it (docs/development.md, "Test timeouts").
const CPU_BOUND_TIMEOUT_MS = 30_000;

export default defineConfig({
  test: {
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          setupFiles,
          testTimeout: CPU_BOUND_TIMEOUT_MS,
          hookTimeout: CPU_BOUND_TIMEOUT_MS,
        },
      },
      {
        test: {
          name: 'process',
          include: ['test/process/**/*.test.ts'],
          environment: 'node',
          setupFiles,
          testTimeout: CPU_BOUND_TIMEOUT_MS,
          hookTimeout: CPU_BOUND_TIMEOUT_MS,
        },
      },
      ...selectedVersions().map((version) => ({
        test: {
          name: `broker-${version.name}`,
          include: ['test/broker/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/broker/support/global-setup.ts'],
          setupFiles,
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      })),
      'storefront/vitest.config.ts',
      // Not a test: records fixtures from a real node (test/record/record-fixtures.record.ts).
      ...(process.env.RECORD_FIXTURES
        ? [{ test: { name: 'record', include: ['test/record/**/*.record.ts'], environment: 'node', testTimeout: 600_000, fileParallelism: false } }]
        : []),
    ],
  },
});
