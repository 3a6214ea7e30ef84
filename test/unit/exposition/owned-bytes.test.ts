import { describe, expect, it } from 'vitest';
import { deflateLines, inflateLines } from '../../../src/exposition/deflated-lines.js';
import { defineMetrics } from '../../../src/model/metric-def.js';
import { ownedConcat, ownedCopy, ownedText } from '../../../src/exposition/owned-bytes.js';
import { SampleSink } from '../../../src/exposition/sample-sink.js';
import { openMetricsHeader, textHeader } from '../../../src/exposition/text-format.js';
import { deflatePart } from '../../../src/exposition/joined-gzip.js';

/** Whether the buffer is all of its memory, not a view of Node's shared pool (8 kB on Node 20, 64 kB on 26). */
function ownsItsMemory(bytes: Buffer): boolean {
  return bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length;
}

const M = defineMetrics('test', {
  small: { name: 'rabbitmq_test_small', type: 'gauge', labels: ['k'], help: 'A family of a few samples.' },
});

describe('bytes kept for long own their memory', () => {
  it('copies, writes and joins into buffers of their own size', () => {
    const pooled = Buffer.from('a short text, from the pool');
    expect(ownsItsMemory(pooled)).toBe(false);
    const copy = ownedCopy(pooled);
    expect(copy.equals(pooled)).toBe(true);
    expect(ownsItsMemory(copy)).toBe(true);
    const text = ownedText('ünïcode ✓');
    expect(text.toString('utf8')).toBe('ünïcode ✓');
    expect(ownsItsMemory(text)).toBe(true);
    const joined = ownedConcat([Buffer.from('ab'), new Uint8Array([0x63]), Buffer.alloc(0), Buffer.from('d')]);
    expect(joined.toString()).toBe('abcd');
    expect(ownsItsMemory(joined)).toBe(true);
  });

  it('a kept chunk of deflated lines does not hold a pool it shares with the text it was made from', () => {
    const text = Buffer.from('rabbitmq_queue_messages{vhost="/",queue="q1"} 5\n'.repeat(20));
    const lines = deflateLines(text);
    expect(ownsItsMemory(lines.deflated)).toBe(true);
    expect(inflateLines(lines).equals(text)).toBe(true);
  });

  it("a small family's lines and the family headers own their memory", () => {
    const sink = new SampleSink();
    sink.add(M.small, ['a'], 1);
    sink.add(M.small, ['b'], 2);
    const [family] = sink.finish();
    expect(family!.chunks).toHaveLength(1);
    const chunk = family!.chunks[0]!;
    expect(Buffer.isBuffer(chunk)).toBe(true);
    expect((chunk as Buffer).toString()).toBe('rabbitmq_test_small{k="a"} 1\nrabbitmq_test_small{k="b"} 2\n');
    expect(ownsItsMemory(chunk as Buffer)).toBe(true);
    expect(ownsItsMemory(textHeader(family!.header))).toBe(true);
    expect(ownsItsMemory(openMetricsHeader(family!.header))).toBe(true);
  });

  it("a part's deflate, kept until its collector polls again, owns its memory, small or streamed", async () => {
    const small = await deflatePart({}, 'text', () => Buffer.from('rabbitmq_up 1\n'));
    expect(small.pieces.every(ownsItsMemory)).toBe(true);
    const streamed = await deflatePart({}, 'text', () => Buffer.from('rabbitmq_queue_messages{queue="q"} 1\n'.repeat(4000)));
    expect(streamed.pieces.every(ownsItsMemory)).toBe(true);
  });
});
