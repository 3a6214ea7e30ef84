import { type DeflatedLines, deflateLines } from './deflated-lines.js';
import type { LabelBlock } from './label-block.js';
import type { MetricDef } from '../model/metric-def.js';
import { formatValue } from './text-format.js';

/**
 * Samples of one family per chunk. A chunk is rendered and deflated again only when one of its
 * samples changed, so small chunks follow changes closely; but each is deflated on its own, and
 * small ones compress worse: 256 is where the answer stays near the whole's size (docs/development.md, "The byte path, measured").
 */
export const CHUNK_SAMPLES = 256;

/** A chunk as last rendered: its samples' blocks and values, and the lines they rendered to (deflated). */
interface RenderedChunk {
  readonly blocks: readonly LabelBlock[];
  readonly values: Float64Array;
  readonly lines: DeflatedLines;
}

/**
 * The chunk that started at a block, per family, as last rendered. Kept on the block (weakly):
 * a queue's blocks live as long as the queue (queues/label-blocks.ts), and what they render to
 * is a function of the family, the block and the values only, so a chunk found here with the
 * same blocks and values is the same bytes whichever poll or sink rendered it.
 */
const chunksStartingAt = new WeakMap<LabelBlock, Map<MetricDef, RenderedChunk>>();

/**
 * The lines of a chunk of `def`'s samples (`blocks[i]` with `values[i]`, as many of each),
 * deflated: the previous poll's when the chunk has the same blocks and values (compared as
 * numbers, not text), else rendered, deflated and kept for the next poll. The text is not kept:
 * a plain-text scrape inflates it again.
 */
export function chunkLines(def: MetricDef, blocks: readonly LabelBlock[], values: readonly number[]): DeflatedLines {
  const first = blocks[0]!;
  let byFamily = chunksStartingAt.get(first);
  const previous = byFamily?.get(def);
  if (previous && sameSamples(previous, blocks, values)) return previous.lines;
  let text = '';
  for (let i = 0; i < blocks.length; i++) text += `${def.name}${blocks[i]!.text} ${formatValue(values[i]!)}\n`;
  const lines = deflateLines(Buffer.from(text, 'utf8'));
  if (!byFamily) {
    byFamily = new Map();
    chunksStartingAt.set(first, byFamily);
  }
  byFamily.set(def, { blocks: sameBlocksKept(byFamily, blocks) ?? [...blocks], values: Float64Array.from(values), lines });
  // Chunks that started inside this one (before a queue came or went) will not come again.
  for (let i = 1; i < blocks.length; i++) chunksStartingAt.get(blocks[i]!)?.delete(def);
  return lines;
}

/**
 * The blocks of another family's chunk starting at the same block, when they are these: the
 * per-queue families come queue by queue in the same order, so their chunks hold the same
 * queues and share one list (a list per chunk and family was megabytes of heap at 100,000 queues).
 */
function sameBlocksKept(byFamily: ReadonlyMap<MetricDef, RenderedChunk>, blocks: readonly LabelBlock[]): readonly LabelBlock[] | undefined {
  for (const chunk of byFamily.values()) {
    if (chunk.blocks.length !== blocks.length) continue;
    let same = true;
    for (let i = 1; i < blocks.length && same; i++) same = chunk.blocks[i] === blocks[i];
    if (same) return chunk.blocks;
  }
  return undefined;
}

function sameSamples(chunk: RenderedChunk, blocks: readonly LabelBlock[], values: readonly number[]): boolean {
  if (chunk.blocks.length !== blocks.length) return false;
  for (let i = 0; i < blocks.length; i++) {
    // Object.is: NaN is NaN again (both render `NaN`), where === would render it every poll.
    if (chunk.blocks[i] !== blocks[i] || !Object.is(chunk.values[i], values[i])) return false;
  }
  return true;
}
