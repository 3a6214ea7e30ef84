/**
 * Three targets as the landing page shows them, made by the exporter's real pieces (config, client,
 * runners, state) polling simulated brokers over HTTP, for the landing page's browser test and its
 * screenshots in docs/:
 * - `orders`, healthy: every collector answers;
 * - `billing`, degraded: its queue lists stall past their per-vhost deadline (300 ms of
 *   `collectors.queues.vhost_timeout`), every vhost, so the poll fails; the poll's own deadline (10 s)
 *   is far enough that the vhosts' deadlines end them, not the poll's cut-off, on a loaded machine too; and
 *   /api/feature-flags is refused to the user (before 3.13 it needs the administrator tag);
 * - `analytics`, down: a wrong password, so /api/overview answers 401.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { loadConfig } from '../../src/config/load-config.js';
import { ProcessMetrics } from '../../src/pipeline/process-metrics.js';
import { Target } from '../../src/target.js';
import { handRunners } from './hand-runners.js';
import { startSimulator, type Simulator } from './management-simulator.js';

/** The down target's password: the page must never show it. */
export const WRONG_PASSWORD = 'not-the-password-8c1f';

export interface LandingPageExamples {
  /** In the order configured: orders (healthy), billing (degraded), analytics (down). */
  readonly targets: readonly Target[];
  close(): Promise<void>;
}

export async function landingPageExamples(log: Logger): Promise<LandingPageExamples> {
  const simulators: Simulator[] = [];
  const targets: Target[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'rmqexp-landing-'));
  const close = async () => {
    await Promise.all(targets.map((t) => t.stop()));
    await Promise.all(simulators.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const healthy = await startSimulator({ queues: 40, vhosts: 2 });
    const troubled = await startSimulator({ queues: 40, vhosts: 2 });
    simulators.push(healthy, troubled);
    troubled.fault(/^\/api\/queues/, { kind: 'stall' });
    troubled.fault('/api/feature-flags', { kind: 'unauthorized' });
    const file = join(dir, 'exporter.yaml');
    writeFileSync(
      file,
      `target:
  username: ${healthy.username}
targets:
  - name: orders
    url: ${healthy.url}
    password: ${healthy.password}
  - name: billing
    url: ${troubled.url}
    password: ${troubled.password}
    collectors:
      queues:
        timeout: 10s
        vhost_timeout: 300ms
  - name: analytics
    url: ${healthy.url}
    password: ${WRONG_PASSWORD}
`,
    );
    const config = await loadConfig({ config: file }, {}, COLLECTORS);
    const processMetrics = new ProcessMetrics();
    for (const setup of config.targets) targets.push(new Target(setup, processMetrics, log));
    // Each target polled once by hand, the broker's self-description first, as at start-up.
    await Promise.all(
      targets.map(async (target) => {
        const runners = handRunners(target);
        const [first, ...others] = runners;
        await first?.pollOnce();
        await Promise.all(others.map((r) => r.pollOnce()));
      }),
    );
  } catch (error) {
    await close();
    throw error;
  }
  return { targets, close };
}
