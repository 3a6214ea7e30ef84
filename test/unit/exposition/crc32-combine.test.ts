import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32Combine } from '../../../src/exposition/crc32-combine.js';

/** Deterministic bytes: `length` of them from a seed. */
function bytes(seed: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let offset = 0, block = 0; offset < length; offset += 32, block++) {
    createHash('sha256').update(`${seed}:${block}`).digest().copy(out, offset);
  }
  return out;
}

describe('crc32Combine', () => {
  it('equals the CRC-32 of the two byte strings joined, for lengths from 0 to past 2^16', () => {
    const lengths = [0, 1, 2, 3, 7, 8, 64, 255, 1000, 4096, 65_535, 65_536, 70_001];
    // Each part made once: making them anew for each of the 169 pairs was most of the test's time.
    const firsts = lengths.map((length, i) => bytes(i, length));
    const seconds = lengths.map((length, j) => bytes(100 + j, length));
    for (const a of firsts) {
      for (const b of seconds) {
        expect(crc32Combine(crc32(a), crc32(b), b.length), `${a.length} + ${b.length}`).toBe(crc32(Buffer.concat([a, b])) >>> 0);
      }
    }
  });

  it('folds many parts into the CRC of the whole, as the gzip trailer needs', () => {
    const parts = Array.from({ length: 40 }, (_, i) => bytes(i, (i * 7919) % 20_000));
    let combined = 0;
    for (const part of parts) combined = crc32Combine(combined, crc32(part), part.length);
    expect(combined).toBe(crc32(Buffer.concat(parts)) >>> 0);
  });

  it('leaves a CRC unchanged when the second part is empty', () => {
    const a = bytes(1, 123);
    expect(crc32Combine(crc32(a), 0, 0)).toBe(crc32(a) >>> 0);
  });
});
