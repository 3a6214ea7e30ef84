// The per-vhost queue lists are asked for a few answers ahead of the one being consumed, not all
// at once: every answer that arrives early is held parsed (issue 12's memory at 100k queues).
import { describe, expect, it } from 'vitest';
import { planQueueQuery, queueOptionsSchema } from '../../../../src/collectors/queues/collector.js';
import type { CollectContext } from '../../../../src/collectors/kit/collector.js';
import { openQueueList } from '../../../../src/collectors/queues/fetch.js';
import { VhostReader } from '../../../../src/collectors/kit/vhost-lists.js';
import { brokerApiAnswering, notFound } from '../../../support/fake-broker-api.js';
import { BROKER_3_10_8 } from '../../../support/run-collector.js';
import { pino } from 'pino';

const VHOSTS = Array.from({ length: 8 }, (_, i) => `v${i}`);

function setUp(answers: (vhost: string) => unknown = (vhost) => [{ vhost, name: `${vhost}-a` }, { vhost, name: `${vhost}-b` }]) {
  const api = brokerApiAnswering((path) => {
    if (path === '/api/vhosts') return VHOSTS.map((name) => ({ name }));
    const vhost = decodeURIComponent(path.split('/')[3]!);
    return answers(vhost);
  });
  const options = queueOptionsSchema.parse({});
  const plan = planQueueQuery({ broker: BROKER_3_10_8, options, log: pino({ level: 'silent' }), carryOver: new Map() });
  const drops = { drop: () => undefined };
  const ctx = { api, carryOver: new Map(), log: pino({ level: 'silent' }), signal: new AbortController().signal } as unknown as CollectContext<unknown>;
  const reader = new VhostReader(ctx, 'queues', { what: 'queues', vhostsSetting: 'collectors.queues.vhosts', timeoutMs: undefined });
  return { api, reader, open: () => openQueueList(api, plan, () => true, options, drops, reader) };
}

const asked = (calls: { path: string }[]) => calls.filter((c) => c.path.startsWith('/api/queues/')).length;

describe('queues: per-vhost answers asked ahead of consumption', () => {
  it('at most three answers are asked for before the one being consumed is used up', async () => {
    const { api, open } = setUp();
    const list = await open();
    expect(list.perVhost).toBe(true);
    const askedAtFirstRecordOf: number[] = [];
    const answers: string[][] = [];
    for await (const answer of list.records) {
      askedAtFirstRecordOf.push(asked(api.calls));
      answers.push(answer.map((queue) => queue.name as string));
    }
    expect(askedAtFirstRecordOf).toEqual([3, 4, 5, 6, 7, 8, 8, 8]);
    // One vhost's answer at a time, in vhost order.
    expect(answers).toEqual(VHOSTS.map((v) => [`${v}-a`, `${v}-b`]));
  });

  it('a vhost deleted after it was listed (404) contributes nothing; a failing one neither, and the others are read', async () => {
    const gone = setUp((vhost) => {
      if (vhost === 'v3') throw notFound(`/api/queues/${vhost}`);
      return [{ vhost, name: `${vhost}-a` }];
    });
    const seen: string[] = [];
    for await (const answer of (await gone.open()).records) seen.push(...answer.map((queue) => queue.name as string));
    expect(seen).toEqual(VHOSTS.filter((v) => v !== 'v3').map((v) => `${v}-a`));
    // Listed, then 404: deleted since, or a vhost the user may not read (RabbitMQ 4.3): reported.
    expect([...gone.reader.unread]).toEqual(['v3']);

    const failing = setUp((vhost) => {
      if (vhost === 'v5') throw new Error('connection reset');
      return [{ vhost, name: `${vhost}-a` }];
    });
    const read: string[] = [];
    for await (const answer of (await failing.open()).records) read.push(...answer.map((queue) => queue.name as string));
    expect(read).toEqual(VHOSTS.filter((v) => v !== 'v5').map((v) => `${v}-a`));
    expect([...failing.reader.unread]).toEqual(['v5']);
  });
});
