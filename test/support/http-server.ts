// A local node:http server on 127.0.0.1:0 whose every answer the test decides.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestServer {
  readonly port: number;
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: IncomingMessage[];
  close(): Promise<void>;
}

export async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 that nothing listens on (it was just closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What a route answers: a JSON body (200), or 'stall' (never answers). */
export type ApiRoute = string | 'stall';

/**
 * A stand-in management API: each path (query ignored) answers its JSON body with 200, a
 * `prefix*` route answers every path under the prefix, 'stall' never answers, and every other
 * path gets RabbitMQ's 404 body.
 */
export function serveApi(routes: Record<string, ApiRoute>): Promise<TestServer> {
  return serve((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const route = routes[path] ?? Object.entries(routes).find(([key]) => key.endsWith('*') && path.startsWith(key.slice(0, -1)))?.[1];
    if (route === 'stall') return;
    res.writeHead(route === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(route ?? '{"error":"Object Not Found","reason":"Not Found"}');
  });
}
