// A TCP port on the loopback interface that nothing listens on: for an address where nothing may
// listen, e.g. a dead broker's URL (an outgoing connection that takes the port meanwhile does not
// listen on it: connecting is still refused).
// Not for a process that is to listen on it: the port comes from the ephemeral range, and another
// test's outgoing connection can take it before that process listens. Such a process listens on
// port 0 and the test reads the port it logs (listening.ts); a server in the test's own process
// listens on port 0 and asks it for its address. The private broker picks its own ports
// (broker/node-process.ts: several at once, below the ephemeral range, clear of RabbitMQ's defaults).
import { createServer } from 'node:net';

/** A port the system just handed out and that nothing listens on now (see above for what it is not for). */
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
