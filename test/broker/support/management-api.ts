// The broker's management API as the tests' administrator sees it: for setting up vhosts, users,
// queues and messages, and for reading the broker's own numbers. Not the exporter's client.
import type { BrokerHandle } from '../../harness/broker/broker.js';

type Credentials = Pick<BrokerHandle, 'managementUrl' | 'username' | 'password'>;

/** Sends one request as given (`path` already percent-encoded) and hands back the status and body, whatever the status. */
export function managementRequest(broker: Credentials) {
  const authorization = `Basic ${Buffer.from(`${broker.username}:${broker.password}`).toString('base64')}`;
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> => {
    const response = await fetch(`${broker.managementUrl}${path}`, {
      method,
      headers: { authorization, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: response.status, text: await response.text() };
  };
}

/** Sends one request; throws naming the method, path, status and answer unless 2xx; the JSON answer, if any. */
export function managementApi(broker: Credentials) {
  const request = managementRequest(broker);
  return async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const { status, text } = await request(method, path, body);
    if (status < 200 || status >= 300) throw new Error(`${method} ${path}: HTTP ${status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
}
