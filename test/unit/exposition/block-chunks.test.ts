// Chunks of block samples are copied from the previous poll only when their blocks and values are
// the same: every poll serves exactly what rendering every line afresh would.
import { describe, expect, it } from 'vitest';
import { CHUNK_SAMPLES, chunkLines } from '../../../src/exposition/block-chunks.js';
import { inflateLines } from '../../../src/exposition/deflated-lines.js';
import { LabelBlock } from '../../../src/exposition/label-block.js';
import { defineMetrics } from '../../../src/model/metric-def.js';
import { SampleSink } from '../../../src/exposition/sample-sink.js';
import { familyBody } from '../../../src/exposition/text-format.js';

const M = defineMetrics('test', {
  ready: { name: 'rabbitmq_test_ready', type: 'gauge', labels: ['vhost', 'queue'], help: 'Ready.' },
  bytes: { name: 'rabbitmq_test_bytes', type: 'gauge', unit: 'bytes', labels: ['vhost', 'queue'], help: 'Bytes.' },
});

const blocksOf = (count: number) => Array.from({ length: count }, (_, i) => new LabelBlock(['vhost', 'queue'], ['v', `q${i}`]));

/** One poll through a sink: each block's `ready` and `bytes` samples; the families' text. */
function poll(blocks: readonly LabelBlock[], values: readonly number[]): string {
  const sink = new SampleSink();
  blocks.forEach((block, i) => {
    sink.addToBlock(M.ready, block, values[i]);
    sink.addToBlock(M.bytes, block, values[i]! * 100);
  });
  return Buffer.concat(sink.finish().map(familyBody)).toString('utf8');
}

/** What the lines are without any reuse. */
function rendered(blocks: readonly LabelBlock[], values: readonly number[]): string {
  const ready = blocks.map((block, i) => `rabbitmq_test_ready${block.text} ${values[i]}\n`).join('');
  const bytes = blocks.map((block, i) => `rabbitmq_test_bytes${block.text} ${values[i]! * 100}\n`).join('');
  return ready + bytes;
}

describe('block chunks', () => {
  it('the same blocks and values: the bytes kept from the last time, not rendered again', () => {
    const blocks = blocksOf(3);
    const first = chunkLines(M.ready, blocks, [1, 2, 3]);
    expect(chunkLines(M.ready, blocks, [1, 2, 3])).toBe(first);
    expect(chunkLines(M.ready, blocks, [1, 2, 4])).not.toBe(first);
    expect(inflateLines(chunkLines(M.ready, blocks, [1, 2, 4])).toString()).toBe(rendered(blocks, [1, 2, 4]).split('rabbitmq_test_bytes')[0]);
  });

  it('through the sink, an unchanged chunk is the same object at the next poll, a changed one a new object (the reuse the exposition counts on)', () => {
    const blocks = blocksOf(CHUNK_SAMPLES * 2);
    const values = blocks.map((_, i) => i);
    const chunksOf = (vals: readonly number[]) => {
      const sink = new SampleSink();
      blocks.forEach((block, i) => {
        sink.addToBlock(M.ready, block, vals[i]);
      });
      return sink.finish().find((family) => family.header === M.ready)!.chunks;
    };
    const first = chunksOf(values);
    expect(first).toHaveLength(2);
    const second = chunksOf(values);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    // One value of the second chunk changed: that chunk only is new.
    const third = chunksOf(values.map((v, i) => (i === CHUNK_SAMPLES + 1 ? v + 1 : v)));
    expect(third[0]).toBe(first[0]);
    expect(third[1]).not.toBe(first[1]);
  });

  it('NaN stays NaN without rendering again; a value turning NaN is a change', () => {
    const blocks = blocksOf(2);
    const nan = chunkLines(M.ready, blocks, [NaN, 1]);
    expect(chunkLines(M.ready, blocks, [NaN, 1])).toBe(nan);
    expect(inflateLines(chunkLines(M.ready, blocks, [0, 1])).toString()).toBe(`rabbitmq_test_ready${blocks[0]!.text} 0\nrabbitmq_test_ready${blocks[1]!.text} 1\n`);
  });

  it('another family of the same blocks has chunks of its own', () => {
    const blocks = blocksOf(2);
    chunkLines(M.ready, blocks, [1, 2]);
    expect(inflateLines(chunkLines(M.bytes, blocks, [1, 2])).toString()).toBe(`rabbitmq_test_bytes${blocks[0]!.text} 1\nrabbitmq_test_bytes${blocks[1]!.text} 2\n`);
  });

  it('polls over several chunks serve what rendering afresh serves: a change, a queue gone, a queue come', () => {
    let blocks = blocksOf(CHUNK_SAMPLES * 3 + 5);
    let values = blocks.map((_, i) => i);
    expect(poll(blocks, values)).toBe(rendered(blocks, values));
    expect(poll(blocks, values)).toBe(rendered(blocks, values));
    values = values.map((v, i) => (i === CHUNK_SAMPLES + 1 ? v + 7 : v));
    const changed = poll(blocks, values);
    expect(changed).toBe(rendered(blocks, values));
    expect(changed).toContain(`rabbitmq_test_ready${blocks[CHUNK_SAMPLES + 1]!.text} ${CHUNK_SAMPLES + 8}\n`);
    blocks = blocks.filter((_, i) => i !== 3);
    values = values.filter((_, i) => i !== 3);
    expect(poll(blocks, values)).toBe(rendered(blocks, values));
    blocks = [...blocks.slice(0, 10), ...blocksOf(1).map(() => new LabelBlock(['vhost', 'queue'], ['v', 'new'])), ...blocks.slice(10)];
    values = [...values.slice(0, 10), 99, ...values.slice(10)];
    expect(poll(blocks, values)).toBe(rendered(blocks, values));
  });

  it('families whose chunks start at the same block but hold other blocks are each served their own', () => {
    const [b0, b1, b2, b3] = blocksOf(4) as [LabelBlock, LabelBlock, LabelBlock, LabelBlock];
    const line = (name: string, block: LabelBlock, value: number) => `rabbitmq_test_${name}${block.text} ${value}\n`;
    expect(inflateLines(chunkLines(M.ready, [b0, b1, b2], [1, 2, 3])).toString()).toBe(line('ready', b0, 1) + line('ready', b1, 2) + line('ready', b2, 3));
    // Same length, another block (a queue the other family lacks): not the ready chunk's list.
    expect(inflateLines(chunkLines(M.bytes, [b0, b1, b3], [1, 2, 3])).toString()).toBe(line('bytes', b0, 1) + line('bytes', b1, 2) + line('bytes', b3, 3));
    expect(inflateLines(chunkLines(M.bytes, [b0, b1, b2], [1, 2, 3])).toString()).toBe(line('bytes', b0, 1) + line('bytes', b1, 2) + line('bytes', b2, 3));
    expect(inflateLines(chunkLines(M.bytes, [b0, b1, b3], [1, 2, 3])).toString()).toBe(line('bytes', b0, 1) + line('bytes', b1, 2) + line('bytes', b3, 3));
    expect(inflateLines(chunkLines(M.ready, [b0, b1], [1, 2])).toString()).toBe(line('ready', b0, 1) + line('ready', b1, 2));
    expect(inflateLines(chunkLines(M.ready, [b0, b1, b2], [1, 2, 3])).toString()).toBe(line('ready', b0, 1) + line('ready', b1, 2) + line('ready', b2, 3));
  });
});

describe('a label block that does not keep its text', () => {
  it('renders the same labels, each time it is asked, as one that keeps them', () => {
    const names = ['vhost', 'queue', 'policy'];
    const values = ['v', 'a "quoted"\nname', ''];
    const kept = new LabelBlock(names, values);
    const notKept = new LabelBlock(names, values, false);
    expect(notKept.text).toBe(kept.text);
    expect(notKept.text).toBe('{vhost="v",queue="a \\"quoted\\"\\nname",policy=""}');
    expect(inflateLines(chunkLines(M.ready, [notKept], [1])).toString()).toBe(`rabbitmq_test_ready${kept.text} 1\n`);
  });
});

describe('block samples through a sink', () => {
  it('each goes to its family whatever order and set of families each block writes', () => {
    const blocks = blocksOf(6);
    // Some blocks lack a family or write them the other way round: the order of the block before is only a guess.
    const writes: [keyof typeof M, number][][] = [
      [['ready', 1], ['bytes', 100]],
      [['ready', 2], ['bytes', 200]],
      [['bytes', 300], ['ready', 3]],
      [['bytes', 400]],
      [['ready', 5]],
      [['ready', 6], ['bytes', 600]],
    ];
    const sink = new SampleSink();
    blocks.forEach((block, i) => {
      for (const [family, value] of writes[i]!) sink.addToBlock(M[family], block, value);
    });
    const text = Buffer.concat(sink.finish().map(familyBody)).toString('utf8');
    const expected = (['ready', 'bytes'] as const).map((family) =>
      blocks.map((block, i) => writes[i]!.filter(([f]) => f === family).map(([, v]) => `rabbitmq_test_${family}${block.text} ${v}\n`).join('')).join(''),
    );
    expect(text).toBe(expected.join(''));
  });
});
