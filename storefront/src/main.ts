// Entry point: `npm run storefront` at the repository root, or `npm start` here (node dist/main.js).
// Logs one line on start (port and db path) and nothing about requests.

import { startStorefront } from './server.js';
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

  const seeded = running.seeded > 0 ? `, seeded ${running.seeded} transaction(s) (passwords hashed in the background)` : '';
  const imported = running.imported > 0 ? `, imported ${running.imported} transaction(s) from ${config.importJsonPath}` : '';
  const auth = config.auth.kind === 'tokens' ? `${config.auth.tokens.length} API token(s)` : 'NO authentication (local only)';
  console.log(`storefront listening on ${config.host ?? 'all interfaces'} port ${running.port}, ${auth}, db ${running.dbPath}${imported}${seeded}`);

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
