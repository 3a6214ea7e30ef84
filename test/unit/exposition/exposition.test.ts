import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CHUNK_SAMPLES } from '../../../src/exposition/block-chunks.js';
import { LabelBlock } from '../../../src/exposition/label-block.js';
import { defineMetrics } from '../../../src/model/metric-def.js';
import { SampleSink } from '../../../src/exposition/sample-sink.js';
import { chunkText } from '../../../src/exposition/text-format.js';
import { Exposition } from '../../../src/exposition/exposition.js';
import { deflateLines, type DeflatedLines } from '../../../src/exposition/deflated-lines.js';
import { busy, loopTurnsDuring } from '../../support/loop-turns.js';

const M = defineMetrics('exporter', {
  g: { name: 'rabbitmq_test_gauge', type: 'gauge', labels: ['q'], help: 'A gauge.' },
  c: { name: 'rabbitmq_test_events_total', type: 'counter', help: 'Events.' },
  none: { name: 'rabbitmq_test_none', type: 'gauge', help: 'No samples.' },
});

/** The gzip of an exposition in one buffer, as a client receives it. */
async function gzipOf(e: Exposition, format: 'text' | 'openmetrics'): Promise<Buffer> {
  return Buffer.concat(await e.gzip(format));
}

function exposition(): Exposition {
  const sink = new SampleSink();
  for (let i = 0; i < 500; i++) sink.add(M.g, [`queue-${i}-é`], i);
  sink.add(M.c, [], 12);
  return Exposition.of([{ header: M.none, chunks: [], samples: 0 }, ...sink.finish()], 12_345, 1000);
}

describe('Exposition', () => {
  it('text body: headers and samples, families without samples omitted', () => {
    const text = exposition().body('text').toString('utf8');
    expect(text.startsWith('# HELP rabbitmq_test_gauge A gauge.\n# TYPE rabbitmq_test_gauge gauge\nrabbitmq_test_gauge{q="queue-0-é"} 0\n')).toBe(true);
    expect(text.endsWith('# HELP rabbitmq_test_events_total Events.\n# TYPE rabbitmq_test_events_total counter\nrabbitmq_test_events_total 12\n')).toBe(true);
    expect(text).not.toContain('rabbitmq_test_none');
    expect(text).not.toContain('# EOF');
  });

  it('OpenMetrics body ends in # EOF and differs from text only in headers', () => {
    const e = exposition();
    const om = e.body('openmetrics').toString('utf8');
    expect(om.endsWith('rabbitmq_test_events_total 12\n# EOF\n')).toBe(true);
    expect(om).toContain('# TYPE rabbitmq_test_events counter\n# HELP rabbitmq_test_events Events.\n');
    const samplesOf = (s: string) => s.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(samplesOf(om)).toEqual(samplesOf(e.body('text').toString('utf8')));
  });

  it('is served from the families\' own buffers: no assembled copy is kept', () => {
    const sink = new SampleSink();
    sink.add(M.g, ['a'], 1);
    const families = sink.finish();
    const e = Exposition.of(families);
    for (const format of ['text', 'openmetrics'] as const) {
      for (const chunk of families[0]!.chunks) expect(e.chunks(format)).toContain(chunk);
      expect(Buffer.concat(e.chunks(format).map(chunkText)).equals(e.body(format))).toBe(true);
    }
    expect(e.body('text')).not.toBe(e.body('text'));
  });

  it('gzip of each format gunzips to the same bytes', async () => {
    const e = exposition();
    for (const format of ['text', 'openmetrics'] as const) {
      const compressed = await gzipOf(e, format);
      expect(compressed[0]).toBe(0x1f);
      expect(compressed[1]).toBe(0x8b);
      expect(compressed.length).toBeLessThan(e.body(format).length);
      expect(gunzipSync(compressed).equals(e.body(format))).toBe(true);
    }
  });

  it('families kept deflated (label blocks) serve the same text plain and gzipped, in both formats', async () => {
    const sink = new SampleSink();
    const blocks = Array.from({ length: CHUNK_SAMPLES * 2 + 7 }, (_, i) => new LabelBlock(['q'], [`queue-${i}-é`]));
    for (const [i, block] of blocks.entries()) sink.addToBlock(M.g, block, i);
    sink.add(M.c, [], 3);
    const families = sink.finish();
    const deflated = families[0]!.chunks.filter((chunk) => !Buffer.isBuffer(chunk));
    expect(deflated.length).toBe(3);
    const e = Exposition.of(families);
    const lines = blocks.map((_, i) => `rabbitmq_test_gauge{q="queue-${i}-é"} ${i}\n`).join('');
    expect(e.body('text').toString('utf8')).toBe(`# HELP rabbitmq_test_gauge A gauge.\n# TYPE rabbitmq_test_gauge gauge\n${lines}# HELP rabbitmq_test_events_total Events.\n# TYPE rabbitmq_test_events_total counter\nrabbitmq_test_events_total 3\n`);
    for (const format of ['text', 'openmetrics'] as const) {
      expect(gunzipSync(await gzipOf(e, format)).equals(e.body(format))).toBe(true);
    }
  });

  it('the gzip promise is shared: one compression for many scrapers', () => {
    const e = exposition();
    const first = e.gzip('text');
    const second = e.gzip('text');
    expect(second).toBe(first);
    expect(e.gzip('openmetrics')).not.toBe(first);
    expect(e.gzip('openmetrics')).toBe(e.gzip('openmetrics'));
  });

  it('sampleCount, validUntil and builtAt', () => {
    const e = exposition();
    expect(e.sampleCount).toBe(501);
    expect(e.validUntil).toBe(12_345);
    expect(e.builtAt).toBe(1000);
  });

  it('an exposition with no families is empty text and a lone # EOF', async () => {
    const e = Exposition.of([]);
    expect(e.body('text').length).toBe(0);
    expect(e.body('openmetrics').toString()).toBe('# EOF\n');
    expect(gunzipSync(await gzipOf(e, 'text')).length).toBe(0);
  });

  describe('gzip of several parts', () => {
    function part(prefix: string, n: number) {
      const sink = new SampleSink();
      for (let i = 0; i < n; i++) sink.add(M.g, [`${prefix}-${i}`], i);
      return sink.finish();
    }

    it('is one gzip member that gunzips, and lists, exactly the plain body, in both formats', async () => {
      const e = new Exposition([part('a', 300), part('b', 2), [], part('c', 1000)], Infinity, 0);
      for (const format of ['text', 'openmetrics'] as const) {
        const compressed = await gzipOf(e, format);
        expect(gunzipSync(compressed).equals(e.body(format))).toBe(true);
        // A single member: the trailer's length is the whole body's (clients such as
        // curl --compressed read only the first member of a multi-member stream).
        expect(compressed.readUInt32LE(compressed.length - 4)).toBe(e.body(format).length);
        expect(compressed.subarray(3).indexOf(Buffer.from([0x1f, 0x8b, 8]))).toBe(-1);
      }
    });

    it('reuses the compression of a part that did not change in the next exposition', async () => {
      const unchanged = part('steady', 500);
      const first = new Exposition([part('x', 1), unchanged], Infinity, 0);
      const second = new Exposition([part('x', 2), unchanged], Infinity, 0);
      const a = await first.gzip('openmetrics');
      const b = await second.gzip('openmetrics');
      expect(gunzipSync(Buffer.concat(b)).equals(second.body('openmetrics'))).toBe(true);
      // The steady part's deflate is a piece of both answers, the same buffer: not compressed again, nor copied.
      const { deflatePart } = await import('../../../src/exposition/joined-gzip.js');
      const [steady, ...more] = (await deflatePart(unchanged, 'openmetrics', () => Buffer.alloc(0))).pieces;
      expect(more).toHaveLength(0);
      expect(a.filter((piece) => piece === steady)).toHaveLength(1);
      expect(b.filter((piece) => piece === steady)).toHaveLength(1);
    });

    it("writes a part's large kept deflated chunks as they are, and joins small ones into few writes", async () => {
      // Hex text deflates to about half its size: each of these is a piece over 32 kB.
      const large = [0, 1].map((i) => deflateLines(Buffer.from(`rabbitmq_test_gauge{q="${randomBytes(40_000).toString('hex')}"} ${i}\n`)));
      const small = Array.from({ length: 100 }, (_, i) => deflateLines(Buffer.from(`rabbitmq_test_gauge{q="kept-${i}"} ${i}\n`)));
      const chunks = [...small.slice(0, 50), large[0]!, large[1]!, ...small.slice(50)];
      const e = Exposition.of([{ header: M.g, chunks, samples: chunks.length }]);
      const pieces = await e.gzip('text');
      for (const chunk of large) expect(pieces.filter((piece) => piece === chunk.deflated)).toHaveLength(1);
      // The gzip header, the family's header, the small chunks before and after the large ones in one piece each, the final block, the trailer.
      expect(pieces.length).toBeLessThanOrEqual(8);
      expect(gunzipSync(Buffer.concat(pieces)).equals(e.body('text'))).toBe(true);
    });

    it('joins a part of many kept deflated chunks with turns of the event loop between them', async () => {
      // Each chunk costs 0.1 ms to read, as a slow piece of the work per chunk would: 200 of them hold the loop for 20 ms in one go unless it is handed turns.
      const chunks = Array.from({ length: 200 }, (_, i) => slowToRead(deflateLines(Buffer.from(`rabbitmq_test_gauge{q="kept-${i}"} ${i}\n`)), 0.1));
      const family = { header: M.g, chunks, samples: chunks.length };
      const e = Exposition.of([family]);
      let compressed: Buffer = Buffer.alloc(0);
      const turns = await loopTurnsDuring(async () => (compressed = await gzipOf(e, 'text')));
      expect(gunzipSync(compressed).toString('utf8')).toBe(`# HELP rabbitmq_test_gauge A gauge.\n# TYPE rabbitmq_test_gauge gauge\n${chunks.map((_, i) => `rabbitmq_test_gauge{q="kept-${i}"} ${i}\n`).join('')}`);
      expect(turns).toBeGreaterThanOrEqual(5);
    });
  });
});

/** A kept chunk whose bytes take `ms` to read each time. */
function slowToRead(lines: DeflatedLines, ms: number): DeflatedLines {
  return {
    get deflated() {
      busy(ms);
      return lines.deflated;
    },
    crc: lines.crc,
    length: lines.length,
  };
}
