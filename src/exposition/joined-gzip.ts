import { constants, crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';
import type { DeflatedLines } from './deflated-lines.js';
import type { BodyChunk } from './text-format.js';
import { crc32Combine } from './crc32-combine.js';
import { Turns } from '../broker/turns.js';
import { ownedConcat, ownedCopy } from './owned-bytes.js';

/**
 * One gzip stream made of parts deflated separately, the way pigz works: each part is raw
 * deflate ending with a sync flush (byte-aligned, not final), so the parts can be joined under
 * one gzip header, closed by an empty final block and the trailer of the whole. A part that did
 * not change since the last exposition (a collector that has not polled again) is not
 * compressed again. It stays a single gzip member: clients that read only the first member of
 * a multi-member file (curl --compressed) get everything.
 */
const deflated = new WeakMap<object, Map<string, Promise<DeflatedPart>>>();

/**
 * A part's raw deflate as pieces written one after another (never copied into one buffer), and
 * the CRC-32 and length of what they decompress to (for the trailer).
 */
export interface DeflatedPart {
  readonly pieces: readonly Buffer[];
  readonly crc: number;
  readonly length: number;
}

/**
 * The part's raw deflate, made once per part object and format. Chunks kept deflated (the
 * per-queue families) are joined as they are; the text between them is compressed, streamed into
 * zlib's thread pool when it is large, never copied into one buffer on the event loop.
 */
export function deflatePart(part: object, format: string, bytes: () => Buffer | readonly BodyChunk[]): Promise<DeflatedPart> {
  let byFormat = deflated.get(part);
  if (!byFormat) {
    byFormat = new Map();
    deflated.set(part, byFormat);
  }
  let result = byFormat.get(format);
  if (!result) {
    const input = bytes();
    result = deflateChunks(Buffer.isBuffer(input) ? [input] : (input as readonly BodyChunk[]));
    byFormat.set(format, result);
  }
  return result;
}

/**
 * Parts up to this size are deflated at once on the event loop (well under a millisecond). A
 * stream holds its deflate state from its creation until it ends: thousands of targets each
 * rebuilding a snapshot of small parts queued tens of thousands of streams for zlib's four
 * threads and took gigabytes (docs/development.md, "The byte path, measured").
 */
const DEFLATE_AT_ONCE_BYTES = 64 * 1024;

/**
 * Looks at the clock every few pieces: a piece of text up to DEFLATE_AT_ONCE_BYTES is deflated at
 * once (well under a millisecond), a kept chunk is only pointed at.
 */
const CLOCK_EVERY_PIECES = 4;

/**
 * The part's pieces deflated and joined, with turns of the event loop between: a large queue
 * poll's part is thousands of pieces (the kept chunks and the text between them), and handling
 * them in one go held the loop after every queue poll (docs/development.md, "The byte path, measured").
 */
async function deflateChunks(chunks: readonly BodyChunk[]): Promise<DeflatedPart> {
  const turns = new Turns(CLOCK_EVERY_PIECES);
  const pieces: (DeflatedLines | Promise<DeflatedLines>)[] = [];
  let text: Buffer[] = [];
  for (const chunk of chunks) {
    if (Buffer.isBuffer(chunk)) {
      text.push(chunk);
      continue;
    }
    await turns.maybeYield();
    if (text.length > 0) pieces.push(observed(deflateText(text)));
    text = [];
    pieces.push(chunk);
  }
  if (text.length > 0 || pieces.length === 0) pieces.push(observed(deflateText(text)));
  return joinDeflated(pieces, turns);
}

/**
 * A streamed piece's failure is handled where it is awaited, in order; until then (turns later)
 * it must not count as unhandled, which would end the process.
 */
function observed(piece: DeflatedLines | Promise<DeflatedLines>): DeflatedLines | Promise<DeflatedLines> {
  if (piece instanceof Promise) piece.catch(() => undefined);
  return piece;
}

/**
 * Pieces at least this large are written as they are; smaller ones that follow one another are
 * copied into one of about this size. A piece is a write to the scraper's socket: the ~8,700
 * kept chunks of 100,000 queues polled on the event loop are ~850 bytes each.
 */
const PIECE_BYTES = 32 * 1024;

/**
 * Deflated pieces one after another, as one part, the streamed ones awaited in turn. Large
 * pieces are not copied: copying the poll thread's chunks into one buffer cost the event loop
 * after every poll, and held a copy beside the pieces, which the poll's families keep anyway.
 */
async function joinDeflated(pieces: readonly (DeflatedLines | Promise<DeflatedLines>)[], turns: Turns): Promise<DeflatedPart> {
  const joined: Buffer[] = [];
  let small: Buffer[] = [];
  let smallBytes = 0;
  const joinSmall = (): void => {
    if (small.length > 0) joined.push(small.length === 1 ? small[0]! : Buffer.concat(small, smallBytes));
    small = [];
    smallBytes = 0;
  };
  let crc = 0;
  let length = 0;
  // Promise.all would wrap each of thousands of pieces.
  for (const piece of pieces) {
    await turns.maybeYield();
    const part = piece instanceof Promise ? await piece : piece;
    crc = crc32Combine(crc, part.crc, part.length);
    length += part.length;
    const bytes = part.deflated;
    if (bytes.length >= PIECE_BYTES) {
      joinSmall();
      joined.push(bytes);
      continue;
    }
    small.push(bytes);
    smallBytes += bytes.length;
    if (smallBytes >= PIECE_BYTES) joinSmall();
  }
  joinSmall();
  return { pieces: joined, crc, length };
}

/** The CRC-32 and length of the pieces' text joined, from each piece's. */
function checksumOf(pieces: readonly DeflatedPart[]): { crc: number; length: number } {
  let crc = 0;
  let length = 0;
  for (const piece of pieces) {
    crc = crc32Combine(crc, piece.crc, piece.length);
    length += piece.length;
  }
  return { crc, length };
}

function deflateText(chunks: readonly Buffer[]): DeflatedLines | Promise<DeflatedLines> {
  const length = chunks.reduce((n, chunk) => n + chunk.length, 0);
  if (length <= DEFLATE_AT_ONCE_BYTES) {
    const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
    // Copied: a part's deflate is kept until its collector polls again (see ownedCopy).
    return { deflated: ownedCopy(deflateRawSync(whole, { level: 6, finishFlush: constants.Z_SYNC_FLUSH })), crc: crc32(whole), length };
  }
  return deflateStreamed(chunks);
}

/**
 * zlib's level for parts over DEFLATE_AT_ONCE_BYTES: level 3 costs a third of 6's CPU for a few
 * percent more bytes (docs/development.md, "The byte path, measured"). Small parts keep level 6: they cost nothing either way.
 */
const STREAMED_LEVEL = 3;

/** Bytes handed to a deflate stream per write (at least). */
const WRITE_BYTES = 64 * 1024;

function deflateStreamed(chunks: readonly Buffer[]): Promise<DeflatedLines> {
  return new Promise((resolve, reject) => {
    const stream = createDeflateRaw({ level: STREAMED_LEVEL, finishFlush: constants.Z_SYNC_FLUSH });
    const out: Buffer[] = [];
    let crc = 0;
    let length = 0;
    stream.on('data', (chunk: Buffer) => out.push(chunk));
    stream.on('error', reject);
    stream.on('end', () => resolve({ deflated: ownedConcat(out), crc, length }));
    let i = 0;
    const writeMore = (): void => {
      while (i < chunks.length) {
        // Small chunks (a few kB: the kept chunks of queue families) are handed over joined into
        // writes of WRITE_BYTES: each write is a job of zlib's thread pool.
        const from = i;
        let bytes = 0;
        while (i < chunks.length && bytes < WRITE_BYTES) bytes += chunks[i++]!.length;
        const chunk = i - from === 1 ? chunks[from]! : Buffer.concat(chunks.slice(from, i), bytes);
        // Checksummed as it is handed to zlib, once per part.
        crc = crc32(chunk, crc);
        length += chunk.length;
        if (!stream.write(chunk)) {
          stream.once('drain', writeMore);
          return;
        }
      }
      stream.end();
    };
    writeMore();
  });
}

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** An empty, final, fixed-Huffman deflate block. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/**
 * Deflated parts as one gzip stream, its trailer from the parts' CRCs and lengths: the pieces to
 * write one after another. Not joined into one buffer: that copied the answer at every
 * exposition, and scraped expositions not yet collected held one copy each.
 */
export function joinGzip(parts: readonly DeflatedPart[]): readonly Buffer[] {
  const { crc, length } = checksumOf(parts);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  return [GZIP_HEADER, ...parts.flatMap((part) => part.pieces), FINAL_BLOCK, trailer];
}
