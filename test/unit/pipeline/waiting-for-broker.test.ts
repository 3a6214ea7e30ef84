// Issue 24: with 10,000 targets that nothing answers, every collector of every target polled and
// failed on its own (fifteen timers, deadlines and failure records per target and interval, where
// one tells the same). A target's other collectors now wait until its broker has answered once.
import { createServer, type Server } from 'node:http';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { ProcessMetrics } from '../../../src/pipeline/process-metrics.js';
import { Target } from '../../../src/target.js';
import { eventually } from '../../harness/eventually.js';
import { closedPort } from '../../support/http-server.js';

function listenOn(port: number, status: number): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'not_authorized', reason: 'Login failed' }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const attemptsOf = (target: Target) => Object.fromEntries([...target.state.collectors.values()].map((c) => [c.name, c.attempts]));

describe('a target whose broker has never answered', () => {
  let target: Target | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await target?.stop();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    target = undefined;
    server = undefined;
  });

  it('polls only the collector describing the broker, and starts the others once the broker answers', async () => {
    const port = await closedPort();
    const config = loadConfig({ pollInterval: '1s' }, { RABBITMQ_URL: `http://127.0.0.1:${port}` }, COLLECTORS);
    target = new Target(config.targets[0]!, new ProcessMetrics(), pino({ level: 'silent' }));
    const t = target;
    t.start();
    // Two refused polls of the overview, one interval apart: the others had every chance to poll.
    await eventually(async () => ((t.state.upDecidedBy?.attempts ?? 0) >= 2 ? true : undefined), 20_000, 'two polls of the overview');
    const others = [...t.state.collectors.keys()].filter((name) => name !== 'overview');
    expect(others.length).toBeGreaterThan(5);
    expect(attemptsOf(t)).toEqual({ ...Object.fromEntries(others.map((name) => [name, 0])), overview: t.state.upDecidedBy?.attempts });
    expect(t.waitingForBroker).toEqual(others);
    expect(t.verdict().level).toBe('down');
    // The landing page says why they are not polled, rather than nothing.
    expect(t.verdict().why).toContain(`${others.length} other collectors wait until the broker answers`);
    expect(t.status().waitingForBroker).toEqual(others);

    // Something answers at the address now (a 401 is an answer): every collector polls.
    server = await listenOn(port, 401);
    await eventually(async () => (others.every((name) => (t.state.collectors.get(name)?.attempts ?? 0) > 0) ? true : undefined), 20_000, 'a poll of every collector');
    expect(t.waitingForBroker).toEqual([]);
    expect(t.state.collectors.get('nodes')?.lastError).toContain('HTTP 401');
  }, 60_000);
});
