// Before 4.0 the plugin counts per channel: a closed channel's counts leave its answer. They are
// kept while the queue has a channel counted, and forgotten with the queue's series.
import { describe, expect, it } from 'vitest';
import { QueueCounterMemory, writeQueueCounters } from '../../../../src/collectors/plugin/queue-counters.js';
import { parsePluginText } from '../../../../src/collectors/plugin/text-parser.js';
import { SampleSink } from '../../../../src/exposition/sample-sink.js';
import { familyBody } from '../../../../src/exposition/text-format.js';

/** One poll of a 3.x node whose channels (name → published count) publish to queue q. */
async function poll(memory: QueueCounterMemory, channels: Record<string, number>): Promise<number | undefined> {
  const lines = Object.entries(channels).map(([channel, count]) => `rabbitmq_detailed_queue_messages_published_total{channel="${channel}",queue_vhost="/",queue="q",exchange_vhost="/",exchange=""} ${count}\n`);
  const sink = new SampleSink();
  writeQueueCounters(sink, [{ source: 'http://node-a:15692', exposition: await parsePluginText(lines.join('')) }], 3, memory);
  const text = sink.finish().map((family) => familyBody(family).toString('utf8')).join('');
  const line = text.split('\n').find((l) => l.startsWith('rabbitmq_queue_messages_published_total{vhost="/",queue="q"}'));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('per-channel queue counters before 4.0', () => {
  it('a closed channel\'s count stays while the queue has another channel, and goes with the queue\'s series', async () => {
    const memory = new QueueCounterMemory();
    expect(await poll(memory, { c1: 5, c2: 1 })).toBe(6);
    // c1 closed: its 5 stay in the queue's count.
    expect(await poll(memory, { c2: 3 })).toBe(8);
    // The last channel closed: the series ends.
    expect(await poll(memory, {})).toBeUndefined();
    // A new channel: the series starts again from what it counts (a reset for rate()), the closed ones forgotten.
    expect(await poll(memory, { c3: 2 })).toBe(2);
  });
});
