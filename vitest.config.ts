import { defineConfig } from 'vitest/config';

// Three projects: `unit` needs nothing but Node; `broker` starts a real RabbitMQ
// (see test/broker/support/broker.ts) and is skipped, loudly, when none is installed;
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
          name: 'broker',
          include: ['test/broker/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/broker/support/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      'storefront/vitest.config.ts',
    ],
  },
});
