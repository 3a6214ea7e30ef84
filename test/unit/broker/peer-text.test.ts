// The management client's peers: another listener of the broker (a node's rabbitmq_prometheus),
// read as text with the target's credentials, under a cap of its own, errors redacted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ManagementError } from '../../../src/broker/errors.js';
import { ManagementClient, peerText } from '../../../src/broker/management-client.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

interface Seen {
  url: string;
  accept: string | undefined;
  authorization: string | undefined;
}

/** A listener answering `body` with `status` to every request, and what it was asked. */
async function listener(status: number, body: string): Promise<{ origin: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', accept: req.headers.accept, authorization: req.headers.authorization });
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function client(): ManagementClient {
  const c = new ManagementClient({
    url: 'http://127.0.0.1:1/api-prefix',
    username: 'monitor',
    password: 's3cret-pw',
    timeouts: { connectMs: 2000, headersMs: 5000, bodyMs: 5000, totalMs: 10_000 },
    maxResponseBytes: 1024 * 1024,
    maxConcurrentRequests: 2,
  });
  cleanups.push(() => c.close());
  return c;
}

const CAP = { bytes: 64, name: 'collectors.plugin.max_answer_bytes' };

describe('reading another listener of the broker as text', () => {
  it('asks for the text format with the target\'s credentials, at the path given (not under the API prefix)', async () => {
    const plugin = await listener(200, 'a_total 1\n');
    const text = await peerText(client(), `${plugin.origin}/metrics/detailed?family=a&family=b`, CAP, {});
    expect(text).toBe('a_total 1\n');
    expect(plugin.seen).toEqual([{ url: '/metrics/detailed?family=a&family=b', accept: 'text/plain; version=0.0.4', authorization: `Basic ${Buffer.from('monitor:s3cret-pw').toString('base64')}` }]);
  });

  it('refuses an answer over its cap, naming the setting', async () => {
    const plugin = await listener(200, 'x'.repeat(65));
    const error = await peerText(client(), `${plugin.origin}/metrics`, CAP, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManagementError);
    expect((error as ManagementError).kind).toBe('too_large');
    expect((error as ManagementError).message).toContain('collectors.plugin.max_answer_bytes');
  });

  it('an error answer quoting the password is redacted', async () => {
    const plugin = await listener(503, 'unavailable for monitor:s3cret-pw');
    const error = (await peerText(client(), `${plugin.origin}/metrics`, CAP, {}).catch((e: unknown) => e)) as ManagementError;
    expect(error.reason).toBe('http_503');
    expect(error.message).not.toContain('s3cret-pw');
  });

  it('keeps one peer per origin, closed with the client', async () => {
    const c = client();
    expect(c.peer('http://a:15692')).toBe(c.peer('http://a:15692'));
    expect(c.peer('http://a:15692')).not.toBe(c.peer('http://b:15692'));
  });
});
