// A plain answer's deflated chunks are inflated as the client takes the text, and no further once it is gone.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { deflateLines } from '../../../src/exposition/deflated-lines.js';
import type { BodyChunk } from '../../../src/exposition/text-format.js';
import { writeChunks } from '../../../src/exposition/write-chunks.js';
import { busy, loopTurnsDuring } from '../../support/loop-turns.js';

const texts = Array.from({ length: 20 }, (_, i) => `rabbitmq_test{q="q${i}"} ${i}\n`.repeat(50));
const chunks: BodyChunk[] = texts.map((text, i) => (i % 2 === 0 ? deflateLines(Buffer.from(text)) : Buffer.from(text)));

/** A client taking `highWaterMark` bytes at a time, slowly; `destroyAfter` writes and it goes away. */
function slowClient(destroyAfter = Infinity): { out: Writable; received: Buffer[]; ended: () => boolean } {
  const received: Buffer[] = [];
  let ended = false;
  const out = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk);
      if (received.length >= destroyAfter) {
        out.destroy();
        return;
      }
      setTimeout(done, 1);
    },
    final(done) {
      ended = true;
      done();
    },
  });
  return { out, received, ended: () => ended };
}

describe('writeChunks', () => {
  it('writes every chunk as text, in order, waiting for the client between chunks, and ends', async () => {
    const client = slowClient();
    await writeChunks(client.out, chunks);
    await new Promise((resolve) => client.out.on('finish', resolve));
    expect(Buffer.concat(client.received).toString('utf8')).toBe(texts.join(''));
    expect(client.ended()).toBe(true);
  });

  it('a client gone mid-answer: returns at once, nothing more written', async () => {
    const client = slowClient(3);
    await writeChunks(client.out, chunks);
    expect(client.received.length).toBe(3);
    expect(client.ended()).toBe(false);
  });

  it('a client that takes everything at once (a local socket) still leaves the event loop turns', async () => {
    // Each write costs ~0.5 ms and is taken at once: 40 of them, ~20 ms, with no push-back.
    const eager = new Writable({
      highWaterMark: 1 << 30,
      write(_chunk: Buffer, _encoding, done) {
        busy(0.5);
        done();
      },
    });
    const turns = await loopTurnsDuring(() => writeChunks(eager, [...chunks, ...chunks]));
    // Without turns the loop gets none until the answer is written.
    expect(turns).toBeGreaterThanOrEqual(3);
  });
});
