import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { BrokerInfoReader } from '../../../src/broker/broker-info-reader.js';
import { ManagementError } from '../../../src/broker/errors.js';
import type { ManagementClient } from '../../../src/broker/management-client.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { ProcessMetrics } from '../../../src/pipeline/process-metrics.js';
import { Target } from '../../../src/target.js';
import { handRunners } from '../../support/hand-runners.js';
import { startSimulator } from '../../support/management-simulator.js';
import { readFixture } from '../../support/fixtures.js';

const overview = () => readFixture<Record<string, unknown>>('rabbitmq-3.10.8', 'overview.json');

describe('BrokerInfoReader', () => {
  it('one request for callers at once; then the latest BrokerInfo is served without asking', async () => {
    const calls: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const client = {
      async getJson(path: string) {
        calls.push(path);
        await gate;
        return overview();
      },
    } as unknown as ManagementClient;
    const self = new BrokerInfoReader(client);
    expect(self.current).toBeUndefined();
    const signal = new AbortController().signal;
    const a = self.read(signal);
    const b = self.latest(signal);
    release();
    expect((await a).info.variant).toBe('A');
    expect(await b).toBe((await a).info);
    expect(await self.latest(signal)).toBe((await a).info);
    expect(calls).toEqual(['/api/overview']);
  });

  it('each read asks again and replaces the info; the record read is handed out as it came', async () => {
    let version = '3.12.0';
    const client = { getJson: async () => ({ ...overview(), management_version: version }) } as unknown as ManagementClient;
    const self = new BrokerInfoReader(client);
    const signal = new AbortController().signal;
    expect((await self.read(signal)).info.variant).toBe('A');
    version = '3.13.7';
    const report = await self.read(signal);
    expect(report.overview.management_version).toBe('3.13.7');
    expect(self.current?.variant).toBe('B');
  });

  // Issue 24: with 10,000 targets down, each of a target's collectors asked for /api/overview
  // itself on every poll: fifteen failing requests per target instead of one.
  it('while the broker never answered, latest() gives the last failure without asking; read() asks again', async () => {
    let answer: unknown = new Error('down');
    let requests = 0;
    const client = {
      async getJson() {
        requests++;
        if (answer instanceof Error) throw answer;
        return answer;
      },
    } as unknown as ManagementClient;
    const self = new BrokerInfoReader(client);
    const signal = new AbortController().signal;
    await expect(self.latest(signal)).rejects.toThrow('down');
    await expect(self.latest(signal)).rejects.toThrow('down');
    expect(requests).toBe(1);
    answer = [overview()];
    await expect(self.read(signal)).rejects.toThrow('/api/overview did not answer a JSON object');
    await expect(self.latest(signal)).rejects.toThrow('/api/overview did not answer a JSON object');
    expect(requests).toBe(2);
    answer = { management_version: '3.10.8' };
    expect((await self.read(signal)).info.managementVersion).toBe('3.10.8');
    expect((await self.latest(signal)).managementVersion).toBe('3.10.8');
    expect(requests).toBe(3);
  });

  // Issue 24: at 10,000 refused targets each poll's new error (its stack frames with it) was held
  // for an interval and went to the old generation, feeding major collections that held the loop.
  it('a failure like the last keeps the one held; another replaces it', async () => {
    let error = new ManagementError('network', '/api/overview', 'ECONNREFUSED: nothing listens');
    const client = {
      async getJson() {
        throw error;
      },
    } as unknown as ManagementClient;
    const self = new BrokerInfoReader(client);
    const signal = new AbortController().signal;
    const first = error;
    await expect(self.read(signal)).rejects.toBe(first);
    error = new ManagementError('network', '/api/overview', 'ECONNREFUSED: nothing listens');
    await expect(self.read(signal)).rejects.toBe(error);
    await expect(self.latest(signal)).rejects.toBe(first);
    error = new ManagementError('timeout', '/api/overview', 'no answer within 10 s');
    const other = error;
    await expect(self.read(signal)).rejects.toBe(other);
    await expect(self.latest(signal)).rejects.toBe(other);
  });
});

describe('a target against the simulated management API', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!();
  });

  // Issue 9 item 4: the first overview poll asked twice (once for the runner's BrokerInfo, once in
  // the collector), and every poll parsed the answer twice.
  it('asks /api/overview once per overview poll, and the other collectors not at all', async () => {
    const sim = await startSimulator({ queues: 3 });
    cleanups.push(() => sim.close());
    const config = loadConfig({}, { RABBITMQ_URL: sim.url, RABBITMQ_USERNAME: sim.username, RABBITMQ_PASSWORD: sim.password }, COLLECTORS);
    const log = pino({ level: 'silent' });
    const target = new Target(config.targets[0]!, new ProcessMetrics(), log);
    cleanups.push(() => target.stop());
    const runners = handRunners(target, ['overview', 'nodes']);
    const overviewRunner = runners[0]!;
    const nodes = runners[1]!;
    const overviewRequests = () => sim.requests.filter((r) => r.split('?')[0] === '/api/overview').length;

    await overviewRunner.pollOnce();
    expect(overviewRequests()).toBe(1);
    expect(target.state.up).toBe(true);
    expect(target.ready).toBe(true);
    expect(target.brokerInfoReader.current?.managementVersion).toBe('3.10.8');
    await nodes.pollOnce();
    expect(target.state.collectors.get('nodes')?.lastSuccess).toBe(true);
    expect(overviewRequests()).toBe(1);
    await overviewRunner.pollOnce();
    expect(overviewRequests()).toBe(2);

    sim.fault('/api/overview', { kind: 'status', status: 500 });
    await overviewRunner.pollOnce();
    expect(overviewRequests()).toBe(3);
    expect(target.state.up).toBe(false);
    expect(target.status().downReason).toMatch(/^\/api\/overview: HTTP 500/);
  });
});
