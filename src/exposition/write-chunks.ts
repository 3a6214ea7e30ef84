import type { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { YIELD_MS } from '../broker/turns.js';
import { type BodyChunk, chunkText } from './text-format.js';

/**
 * Writes an answer's chunks in turn and ends it. Chunks kept deflated are inflated only as the
 * client takes the text before them: a large plain-text answer is never all in memory at once,
 * and a client that goes away stops the inflating.
 */
export async function writeChunks(out: Writable, chunks: readonly BodyChunk[]): Promise<void> {
  // A fast reader (a local socket) takes chunk after chunk without pushing back: a large
  // plain-text answer held the loop in one go before it had turns (docs/development.md, "The byte path, measured"). A
  // scrape's own budget, not the poll's (Turns): serving does not wait in line behind polling.
  let since = performance.now();
  for (const chunk of chunks) {
    if (performance.now() - since > YIELD_MS) {
      await nextTurn();
      since = performance.now();
    }
    if (out.destroyed) return;
    if (!out.write(chunkText(chunk))) await drainedOrClosed(out);
  }
  if (!out.destroyed) out.end();
}

function drainedOrClosed(out: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.once('drain', done);
    out.once('close', done);
  });
}
