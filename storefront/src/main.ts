// Entry point: `npm run storefront` at the repository root, or `npm start` here (node dist/main.js).
// Logs one line on start (port and db path) and nothing about requests.

import { startStorefront } from './app.js';
import { loadConfig } from './config.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    console.error(`storefront: ${(err as Error).message}`);
    process.exitCode = 1;
    return;
  }

  let running: Awaited<ReturnType<typeof startStorefront>>;
  try {
    running = await startStorefront(config);
  } catch (err) {
    console.error(`storefront: refusing to start: ${(err as Error).message}`);
    process.exitCode = 1;
    return;
  }

  const seeded = running.seeded > 0 ? `, seeded ${running.seeded} transaction(s)` : '';
  console.log(`storefront listening on port ${running.port}, db ${running.dbPath}${seeded}`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      console.error(`storefront: second ${signal}, exiting now`);
      process.exit(1);
    }
    stopping = true;
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`storefront: error while stopping: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();
