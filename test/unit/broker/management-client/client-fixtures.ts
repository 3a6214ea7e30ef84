// What the management client's tests (this folder) share: a local HTTP server per test, closed
// after it, a client for it, and checks that a failure is of its kind and carries no secret.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { expect } from 'vitest';
import { ManagementError, type ManagementErrorKind } from '../../../../src/broker/errors.js';
import { ManagementClient, type ClientOptions } from '../../../../src/broker/management-client.js';
import { serve, sleep, type TestServer } from '../../../support/http-server.js';

export const USER = 'monitor';
export const PASSWORD = 'pa55-Wörd-3c7e';

export const cleanups: (() => Promise<void>)[] = [];

export async function server(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const s = await serve(handler);
  cleanups.push(() => s.close());
  return s;
}

export function client(url: string, overrides: Partial<ClientOptions> = {}): ManagementClient {
  const c = new ManagementClient({
    url,
    username: USER,
    password: PASSWORD,
    timeouts: { connectMs: 2000, headersMs: 5000, bodyMs: 5000, totalMs: 10_000, ...overrides.timeouts },
    maxResponseBytes: 1024 * 1024,
    maxConcurrentRequests: 2,
    ...overrides,
  });
  // Registered before the server's cleanup runs (LIFO), so the pool closes first.
  cleanups.push(() => c.close().catch(() => undefined));
  return c;
}

export async function failure(promise: Promise<unknown>): Promise<ManagementError> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ManagementError);
    return error as ManagementError;
  }
  throw new Error(`expected a ManagementError, but it resolved to ${JSON.stringify(value)}`);
}

export function expectKind(error: ManagementError, kind: ManagementErrorKind, path: string): void {
  expect(error.kind, error.message).toBe(kind);
  expect(error.path).toBe(path);
  expect(error.message.startsWith(`GET ${path}: `)).toBe(true);
}

/** Neither the password nor the Authorization header value appears anywhere in the error. */
export function expectNoSecret(error: unknown): void {
  const basic = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
  let current: unknown = error;
  const seen = new Set<unknown>();
  while (current !== undefined && current !== null && !seen.has(current)) {
    seen.add(current);
    const texts = [String(current), inspect(current, { depth: Infinity, showHidden: true })];
    try {
      texts.push(JSON.stringify(current) ?? '');
    } catch {
      /* circular: inspect covers it */
    }
    if (current instanceof Error) texts.push(current.message, current.stack ?? '');
    for (const text of texts) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(basic);
    }
    current = (current as { cause?: unknown }).cause;
  }
}

/**
 * Runs fn with the process's uncaughtException listeners (vitest's) swapped for one that
 * records, then waits a little for late 'error' events and puts the listeners back.
 */
export async function withUncaughtCaptured(fn: () => Promise<ManagementError>): Promise<{ error: ManagementError; uncaught: unknown[] }> {
  const uncaught: unknown[] = [];
  const saved = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  const record = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', record);
  try {
    const error = await fn();
    await sleep(100);
    return { error, uncaught };
  } finally {
    process.off('uncaughtException', record);
    for (const listener of saved) process.on('uncaughtException', listener);
  }
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
