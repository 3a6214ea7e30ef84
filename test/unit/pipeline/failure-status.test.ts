// Issue 32 item 8: what the runners record for the landing page, from real polls over HTTP of
// simulated brokers: the kind of a failure, and the requests a successful poll left out.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TargetStatus } from '../../../src/pipeline/target-status.js';
import { landingPageExamples, WRONG_PASSWORD, type LandingPageExamples } from '../../support/landing-page-examples.js';

let examples: LandingPageExamples;
let statuses: Map<string, TargetStatus>;
beforeAll(async () => {
  examples = await landingPageExamples(pino({ level: 'silent' }));
  statuses = new Map(examples.targets.map((t) => [t.name, t.status()]));
}, 30_000);
afterAll(() => examples?.close());

function collector(target: string, name: string) {
  const found = statuses.get(target)?.collectors.find((c) => c.name === name);
  if (!found) throw new Error(`no collector ${name} on ${target}`);
  return found;
}

describe('status after real polls', () => {
  it('healthy: every collector ok, the broker read', () => {
    const orders = statuses.get('orders')!;
    expect(orders.verdict.level).toBe('healthy');
    expect(orders.collectors.every((c) => c.condition === 'ok')).toBe(true);
    expect(orders.broker).toEqual({ productName: 'RabbitMQ', productVersion: '3.10.8', clusterName: expect.any(String), node: expect.any(String) });
    expect(orders.broker?.clusterName).not.toBe('');
  });

  it("degraded: lists stalled past their per-vhost deadline are request_timeout; a refused feature-flags list is left out, not 'ok'", () => {
    const billing = statuses.get('billing')!;
    expect(billing.verdict).toEqual({ level: 'degraded', why: '1 of 15 collectors failing (queues); never succeeded: queues; requests left out by feature_flags' });
    expect(collector('billing', 'queues')).toMatchObject({ condition: 'failing', lastFailure: { kind: 'request_timeout' }, timeoutMs: 10_000 });
    expect(collector('billing', 'feature_flags')).toMatchObject({
      condition: 'partial',
      lastSuccess: true,
      leftOut: [{ path: '/api/feature-flags', cause: { kind: 'forbidden', status: 401 }, why: expect.stringContaining('administrator tag') }],
    });
    expect(billing.collectors.slice(0, 2).map((c) => c.name)).toEqual(['queues', 'feature_flags']);
  });

  it('down: a wrong password is unauthorized; the status names the user and where the password came from, not the password', () => {
    const analytics = statuses.get('analytics')!;
    expect(analytics.verdict.level).toBe('down');
    expect(collector('analytics', 'overview').lastFailure).toEqual({ kind: 'unauthorized', status: 401 });
    expect(analytics.access).toMatchObject({ username: 'monitor', passwordSource: 'config file' });
    expect(JSON.stringify([...statuses.values()])).not.toContain(WRONG_PASSWORD);
  });
});
