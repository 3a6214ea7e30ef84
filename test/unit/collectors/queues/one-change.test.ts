// A value changing in one queue changes that queue's series and nothing else of the queue
// collector's exposition: the label blocks kept from one poll to the next (queues/label-blocks.ts,
// SampleSink.addToBlock) never carry a value or a label from one queue or one poll to another.
import { describe, expect, it } from 'vitest';
import { type Q, FULL, listRoute, run } from './queue-fixtures.js';

/** Two polls of the same target (statistics on both), `change` applied to the queues between. */
async function twoPolls(change: (queues: Q[]) => void): Promise<{ before: string[]; after: string[] }> {
  const queues = structuredClone(FULL);
  const memory = new Map<string, unknown>();
  const options = { per_vhost: false, stats_every: 1 };
  const first = await run({ '/api/queues': listRoute(queues) }, options, { memory }).result;
  change(queues);
  const second = await run({ '/api/queues': listRoute(queues) }, options, { memory }).result;
  return { before: first.text.split('\n'), after: second.text.split('\n') };
}

/** Lines of `after` that `before` lacks, and the other way round. */
function difference({ before, after }: { before: string[]; after: string[] }): { added: string[]; removed: string[] } {
  const had = new Set(before);
  const has = new Set(after);
  return { added: after.filter((line) => !had.has(line)), removed: before.filter((line) => !has.has(line)) };
}

describe('queues: one queue changes', () => {
  it('nothing changed: the second poll serves the same bytes', async () => {
    const polls = await twoPolls(() => undefined);
    expect(polls.after).toEqual(polls.before);
  });

  it('a count of one queue: its series and its vhost\'s aggregates of it, nothing else', async () => {
    // q10 (FULL[1], a classic queue of vh0 without consumers) has messages_ready 0 in the
    // recording, as have the other queues of vh0 (read off the fixture): vh0's classic sum goes
    // 0 → 7, and its classic queues with ready messages and no consumer 0 → 1.
    const polls = await twoPolls((queues) => {
      queues[1]!.messages_ready = 7;
    });
    const { added, removed } = difference(polls);
    const vh0 = '{vhost="vh0",type="classic"}';
    expect(removed).toEqual(['rabbitmq_queue_messages_ready{vhost="vh0",queue="q10"} 0', `rabbitmq_vhost_queue_messages_ready${vh0} 0`, `rabbitmq_vhost_queues_ready_without_consumers${vh0} 0`]);
    expect(added).toEqual(['rabbitmq_queue_messages_ready{vhost="vh0",queue="q10"} 7', `rabbitmq_vhost_queue_messages_ready${vh0} 7`, `rabbitmq_vhost_queues_ready_without_consumers${vh0} 1`]);
    expect(polls.after.length).toBe(polls.before.length);
  });

  it('a counter of one queue: that one series, nothing else', async () => {
    // q0 (FULL[0]) has published 3175 in the recording.
    const polls = await twoPolls((queues) => {
      (queues[0]!.message_stats as Q).publish = 3180;
    });
    const { added, removed } = difference(polls);
    expect(removed).toEqual(['rabbitmq_queue_messages_published_total{vhost="vh0",queue="q0"} 3175']);
    expect(added).toEqual(['rabbitmq_queue_messages_published_total{vhost="vh0",queue="q0"} 3180']);
  });

  it('a label of one queue\'s info series: that series only', async () => {
    const polls = await twoPolls((queues) => {
      queues[1]!.policy = 'ha-two';
    });
    const { added, removed } = difference(polls);
    expect(removed).toHaveLength(1);
    expect(added).toEqual([removed[0]!.replace('policy=""', 'policy="ha-two"')]);
    expect(added[0]).toMatch(/^rabbitmq_queue_info\{vhost="vh0",queue="q10",.*policy="ha-two"/);
  });
});
