import { setImmediate as nextTurn } from 'node:timers/promises';
import { constants, crc32, createDeflateRaw } from 'node:zlib';

/**
 * One gzip stream made of parts deflated separately, the way pigz works: each part is raw
 * deflate ending with a sync flush (byte-aligned, not final), so the parts can be joined under
 * one gzip header, closed by an empty final block and the trailer of the whole. A part that did
 * not change since the last exposition (a collector that has not polled again) is not
 * compressed again. It stays a single gzip member: clients that read only the first member of
 * a multi-member file (curl --compressed) get everything.
 */
const deflated = new WeakMap<object, Map<string, Promise<Buffer>>>();

/**
 * The part's raw deflate, compressed once per part object and format (in zlib's thread pool).
 * The part's bytes are streamed into zlib chunk by chunk: a part of 100k queues is ~150 MB of
 * text, which is never copied into one buffer on the event loop.
 */
export function deflatePart(part: object, format: string, bytes: () => Buffer | readonly Buffer[]): Promise<Buffer> {
  let byFormat = deflated.get(part);
  if (!byFormat) {
    byFormat = new Map();
    deflated.set(part, byFormat);
  }
  let result = byFormat.get(format);
  if (!result) {
    const input = bytes();
    result = deflateChunks(Buffer.isBuffer(input) ? [input] : (input as readonly Buffer[]));
    byFormat.set(format, result);
  }
  return result;
}

function deflateChunks(chunks: readonly Buffer[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const stream = createDeflateRaw({ level: 6, finishFlush: constants.Z_SYNC_FLUSH });
    const out: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => out.push(chunk));
    stream.on('error', reject);
    stream.on('end', () => resolve(Buffer.concat(out)));
    let i = 0;
    const writeMore = (): void => {
      while (i < chunks.length) {
        if (!stream.write(chunks[i++])) {
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

/** Bytes checksummed between two turns of the event loop (~2 ms). */
const CRC_SLICE_BYTES = 8 * 1024 * 1024;

/** Joins deflated parts into one gzip stream; `uncompressed` is what they decompress to, for the trailer. */
export async function joinGzip(deflatedParts: readonly Buffer[], uncompressed: readonly Buffer[]): Promise<Buffer> {
  let crc = 0;
  let length = 0;
  let sinceTurn = 0;
  for (const chunk of uncompressed) {
    for (let offset = 0; offset < chunk.length; offset += CRC_SLICE_BYTES) {
      const slice = chunk.subarray(offset, offset + CRC_SLICE_BYTES);
      crc = crc32(slice, crc);
      sinceTurn += slice.length;
      if (sinceTurn >= CRC_SLICE_BYTES) {
        sinceTurn = 0;
        await nextTurn();
      }
    }
    length += chunk.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  return Buffer.concat([GZIP_HEADER, ...deflatedParts, FINAL_BLOCK, trailer]);
}
