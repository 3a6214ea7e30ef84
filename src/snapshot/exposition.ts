import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { concatFamilies, OPENMETRICS_EOF, type RenderedFamily } from '../render/exposition.js';

const gzip = promisify(gzipCallback);

export type Format = 'text' | 'openmetrics';

/**
 * One immutable, fully rendered answer to /metrics. Its families' bodies are the only full copy
 * of the samples: an uncompressed answer is written from them chunk by chunk, and the gzip of a
 * format is made once (off the event loop, by zlib's thread pool) and shared by every scraper.
 */
export class Exposition {
  private readonly gzipped = new Map<Format, Promise<Buffer>>();

  constructor(
    private readonly families: readonly RenderedFamily[],
    /** Wall-clock time (ms) after which a part of it is too old to serve. */
    readonly validUntil: number,
    readonly builtAt: number,
  ) {}

  /** The answer as a list of buffers to write one after another. */
  chunks(format: Format): Buffer[] {
    const chunks = concatFamilies(this.families, format === 'openmetrics');
    if (format === 'openmetrics') chunks.push(OPENMETRICS_EOF);
    return chunks;
  }

  /** The answer in one buffer (a copy: for compression and tests, not for serving). */
  body(format: Format): Buffer {
    return Buffer.concat(this.chunks(format));
  }

  gzip(format: Format): Promise<Buffer> {
    let compressed = this.gzipped.get(format);
    if (!compressed) {
      compressed = gzip(this.body(format), { level: 6 });
      this.gzipped.set(format, compressed);
    }
    return compressed;
  }

  get sampleCount(): number {
    return this.families.reduce((n, f) => n + f.samples, 0);
  }
}
