// The broker's management API as the tests' administrator sees it: for setting up vhosts, users,
// queues and messages, and for reading the broker's own numbers. Not the exporter's client.
import type { BrokerHandle } from './broker.js';

/** Sends one request; throws naming the method, path and status unless 2xx; the JSON answer, if any. */
export function managementApi(broker: Pick<BrokerHandle, 'managementUrl' | 'username' | 'password'>) {
  const authorization = `Basic ${Buffer.from(`${broker.username}:${broker.password}`).toString('base64')}`;
  return async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${broker.managementUrl}${path}`, {
      method,
      headers: { authorization, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status}`);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  };
}
