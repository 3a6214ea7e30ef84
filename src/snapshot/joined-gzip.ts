import { promisify } from 'node:util';
import { constants, crc32, deflateRaw } from 'node:zlib';

const deflateRawAsync = promisify(deflateRaw);

/**
 * One gzip stream made of parts deflated separately, the way pigz works: each part is raw
 * deflate ending with a sync flush (byte-aligned, not final), so the parts can be joined under
 * one gzip header, closed by an empty final block and the trailer of the whole. A part that did
 * not change since the last exposition (a collector that has not polled again) is not
 * compressed again. It stays a single gzip member: clients that read only the first member of
 * a multi-member file (curl --compressed) get everything.
 */
const deflated = new WeakMap<object, Map<string, Promise<Buffer>>>();

/** The part's raw deflate, compressed once per part object and format (in zlib's thread pool). */
export function deflatePart(part: object, format: string, bytes: () => Buffer): Promise<Buffer> {
  let byFormat = deflated.get(part);
  if (!byFormat) {
    byFormat = new Map();
    deflated.set(part, byFormat);
  }
  let result = byFormat.get(format);
  if (!result) {
    result = deflateRawAsync(bytes(), { level: 6, finishFlush: constants.Z_SYNC_FLUSH });
    byFormat.set(format, result);
  }
  return result;
}

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** An empty, final, fixed-Huffman deflate block. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** Joins deflated parts into one gzip stream; `uncompressed` is what they decompress to, for the trailer. */
export function joinGzip(deflatedParts: readonly Buffer[], uncompressed: readonly Buffer[]): Buffer {
  let crc = 0;
  let length = 0;
  for (const chunk of uncompressed) {
    crc = crc32(chunk, crc);
    length += chunk.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  return Buffer.concat([GZIP_HEADER, ...deflatedParts, FINAL_BLOCK, trailer]);
}
