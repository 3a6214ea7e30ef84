import { describe, expect, it } from 'vitest';
import { emitQueueLimits } from '../../../../src/collectors/queues/series.js';
import { SampleSink } from '../../../../src/exposition/sample-sink.js';
import { LabelBlock } from '../../../../src/exposition/label-block.js';
import { familyBody } from '../../../../src/exposition/text-format.js';

/** The limit lines emitQueueLimits writes for one queue record. */
function limitsOf(queue: Record<string, unknown>): string[] {
  const sink = new SampleSink();
  emitQueueLimits(sink, queue, new LabelBlock(['vhost', 'queue'], ['/', 'q']));
  return sink.finish().flatMap((f) => familyBody(f).toString('utf8').split('\n').filter(Boolean));
}

describe('queue length limits', () => {
  it('takes the smaller of the argument and the effective policy\'s limit, each alone when the other is absent', () => {
    expect(limitsOf({ arguments: { 'x-max-length': 100 }, effective_policy_definition: { 'max-length': 40 } })).toEqual(['rabbitmq_queue_max_length_messages{vhost="/",queue="q"} 40']);
    expect(limitsOf({ arguments: { 'x-max-length': 10 }, effective_policy_definition: { 'max-length': 40 } })).toEqual(['rabbitmq_queue_max_length_messages{vhost="/",queue="q"} 10']);
    expect(limitsOf({ arguments: {}, effective_policy_definition: { 'max-length-bytes': 1000 } })).toEqual(['rabbitmq_queue_max_length_bytes{vhost="/",queue="q"} 1000']);
    expect(limitsOf({ arguments: { 'x-max-length': 0 } })).toEqual(['rabbitmq_queue_max_length_messages{vhost="/",queue="q"} 0']);
  });

  it('serves nothing for a queue without a limit, and ignores limits that are not non-negative numbers', () => {
    expect(limitsOf({ arguments: {}, effective_policy_definition: {} })).toEqual([]);
    expect(limitsOf({})).toEqual([]);
    expect(limitsOf({ arguments: { 'x-max-length': '10', 'x-max-length-bytes': -1 }, effective_policy_definition: { 'max-length': null } })).toEqual([]);
    expect(limitsOf({ arguments: [1, 2], effective_policy_definition: 'max-length' })).toEqual([]);
  });
});
