import { constants, crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { ownedCopy } from './owned-bytes.js';

/**
 * Sample lines kept compressed only: the text of the per-queue families is some 25 times their
 * deflate, and keeping the text was most of the process's memory (docs/development.md, "The byte path, measured"). Raw
 * deflate ending in a sync flush (byte-aligned, not final), so a gzip answer is these joined as
 * they are (joined-gzip.ts), with the CRC-32 and length of the text for its trailer.
 */
export interface DeflatedLines {
  readonly deflated: Buffer;
  readonly crc: number;
  readonly length: number;
}

/**
 * zlib's level for a chunk of lines: on the chunks of 100,000 simulated queues (bench/queue-poll),
 * levels 1, 3 and 6 gave answers within 4% of each other in size; 1 costs least.
 */
const CHUNK_LEVEL = 1;

export function deflateLines(text: Buffer): DeflatedLines {
  // Copied: zlib's answer is a view of a larger buffer, which a kept view of a few hundred bytes would hold whole.
  const deflated = ownedCopy(deflateRawSync(text, { level: CHUNK_LEVEL, finishFlush: constants.Z_SYNC_FLUSH }));
  return { deflated, crc: crc32(text), length: text.length };
}

export function inflateLines(lines: DeflatedLines): Buffer {
  return inflateRawSync(lines.deflated, { finishFlush: constants.Z_SYNC_FLUSH });
}
