import { defineConfig } from 'vitest/config';

// The storefront's tests: real servers on 127.0.0.1 port 0 with temp db files; nothing else needed.
// Run here (`npm test`) or from the repository root as the `storefront` project.
export default defineConfig({
  test: {
    name: 'storefront',
    include: ['test/**/*.test.ts'],
    environment: 'node',
  },
});
