/**
 * One GET on a connection of its own, read to the end, with Node's own HTTP client. Not undici's
 * fetch: undici 7 asserts (uncatchably, from the socket's 'end') when a server closes the connection
 * while the response body is paused for backpressure (nodejs/undici#5360, fixed in undici 8, which
 * needs Node 22). A connection per request because a reused keep-alive one may have been closed by
 * the exporter's web.idle_timeout while a busy test had not yet read the close.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface GetOnceOptions {
  headers?: Record<string, string>;
  /** For https: the CA to trust and, where the server asks for one, the client certificate. */
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

export function getOnce(url: string, options: GetOnceOptions = {}): Promise<{ status: number; text: string }> {
  const secure = url.startsWith('https:');
  const tls = secure ? { ca: options.ca, cert: options.cert, key: options.key } : {};
  const send = secure ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'GET', agent: false, headers: options.headers ?? {}, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}
