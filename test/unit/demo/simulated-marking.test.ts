// A simulated cluster says so (issue 30 item 5): the overview's `simulation` field, which no RabbitMQ
// sends, becomes rabbitmq_simulated_info and the landing page's banner; a real broker gets neither.
import { describe, expect, it } from 'vitest';
import { brokerInfoFromOverview } from '../../../src/broker/broker-info.js';
import { overviewCollector } from '../../../src/collectors/overview/collector.js';
import { landingPage } from '../../../src/server/landing-page.js';
import { TargetState } from '../../../src/pipeline/target-state.js';
import { targetStatus, targetVerdict } from '../../../src/pipeline/target-status.js';
import { fakeApi } from '../../support/fake-broker-api.js';
import { readFixture } from '../../support/fixtures.js';
import { samples } from '../../support/parse-exposition.js';
import { brokerFrom, runCollector } from '../../support/run-collector.js';

const DIR = 'rabbitmq-3.10.8';
const real = () => readFixture<Record<string, unknown>>(DIR, 'overview.json');
const simulated = () => ({ ...real(), simulation: 'a <test> simulator' });

async function overviewSeries(overview: Record<string, unknown>): Promise<Map<string, number>> {
  const { text } = await runCollector(overviewCollector, { api: fakeApi({ '/api/overview': overview }), broker: brokerFrom(DIR) });
  return samples(text);
}

function pageFor(overview: Record<string, unknown>, target?: string): string {
  const state = new TargetState('demo', 'http://127.0.0.1:1');
  state.register('overview', 15_000, 45_000, { decidesUp: true, timeoutMs: 15_000 });
  const broker = brokerInfoFromOverview(overview);
  return landingPage([{ name: 'demo', verdict: targetVerdict(state), status: () => targetStatus(state, broker) }], { target }).html;
}

describe('a simulated cluster is marked', () => {
  it('by rabbitmq_simulated_info, absent for a real broker', async () => {
    const marks = (s: Map<string, number>) => [...s].filter(([k]) => k.startsWith('rabbitmq_simulated_info'));
    expect(marks(await overviewSeries(simulated()))).toEqual([['rabbitmq_simulated_info{simulation="a <test> simulator"}', 1]]);
    expect(marks(await overviewSeries(real()))).toEqual([]);
  });

  it('by a banner on the landing page, on the list and on one target, absent for a real broker', () => {
    for (const target of [undefined, 'demo']) {
      expect(pageFor(simulated(), target)).toContain('<p class="simulated">SIMULATED: no RabbitMQ is watched here. The management API answering is a &#60;test&#62; simulator;');
      expect(pageFor(real(), target)).not.toContain('class="simulated"');
    }
  });

  it('only by what the overview says: the broker info has no simulation for a real broker', () => {
    expect(brokerInfoFromOverview(real()).simulation).toBeUndefined();
    expect(brokerInfoFromOverview(simulated()).simulation).toBe('a <test> simulator');
  });
});
