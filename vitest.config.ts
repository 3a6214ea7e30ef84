import { defineConfig } from 'vitest/config';
import { selectedVersions } from './test/harness/broker/versions.js';

// `unit` needs nothing but Node and runs the code in-process. `process` runs the BUILT exporter
// (dist/, made by `npm run build:exporter`, which `npm test` runs first) as a child process against
// simulated brokers: start-up, signals, its web server, what it logs. One `broker-<version>`
// project per RabbitMQ version selected by BROKER_VERSIONS (default all: 3.10, 4.0, 4.3; see
// test/harness/broker/versions.ts): each starts
// a real node of its version (test/harness/broker/broker.ts) and runs every broker test on it;
// skipped, loudly, when that version cannot run here. Broker files run one at a time, all
// versions in turn (no file parallelism: the machine has 2 cores and the tests measure a broker).
// `storefront` is the separate storefront package's own config (storefront/vitest.config.ts).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'process',
          include: ['test/process/**/*.test.ts'],
          environment: 'node',
        },
      },
      ...selectedVersions().map((version) => ({
        test: {
          name: `broker-${version.name}`,
          include: ['test/broker/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/broker/support/global-setup.ts'],
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
