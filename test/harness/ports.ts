// A free TCP port on the loopback interface, for a server a test or benchmark starts (the exporter,
// a simulated broker, a proxy). The private broker picks its own ports (broker/node-process.ts:
// several at once, in a range clear of RabbitMQ's defaults).
import { createServer } from 'node:net';

/** A port the system just handed out and that nothing listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
