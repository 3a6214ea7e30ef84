import { expect, it } from 'vitest';
import { isAbsent } from '../../src/broker/absence.js';
import { ManagementError } from '../../src/broker/errors.js';
import { ManagementClient } from '../../src/broker/management-client.js';
import { describeWithBroker } from './support/with-broker.js';

describeWithBroker('the management client against a real RabbitMQ', (broker) => {
  const client = (password = broker.password) =>
    new ManagementClient({
      url: broker.managementUrl,
      username: broker.username,
      password,
      timeouts: { connectMs: 2000, headersMs: 10_000, bodyMs: 10_000, totalMs: 15_000 },
      maxResponseBytes: 64 << 20,
      maxConcurrentRequests: 2,
    });

  it('gets a 404, not a 406, for a path no enabled plugin serves (so "absent" is recognised)', async () => {
    const c = client();
    try {
      // The stream management plugin is not enabled on the test node.
      const error = await c.getJson('/api/stream/connections').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ManagementError);
      expect((error as ManagementError).status).toBe(404);
      expect(isAbsent(error)).toBe(true);
    } finally {
      await c.close();
    }
  });

  it('reports a wrong password as HTTP 401 without the password', async () => {
    const c = client('not-the-password-4711');
    try {
      const error = (await c.getJson('/api/overview').catch((e: unknown) => e)) as ManagementError;
      expect(error.kind).toBe('http_status');
      expect(error.status).toBe(401);
      expect(error.message).toContain('/api/overview');
      expect(`${error.message} ${JSON.stringify(error)} ${String(error.cause ?? '')}`).not.toContain('not-the-password-4711');
    } finally {
      await c.close();
    }
  });
});
