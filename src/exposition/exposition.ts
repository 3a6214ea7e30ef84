import { type BodyChunk, chunkText, concatFamilies, OPENMETRICS_EOF, type RenderedFamily } from './text-format.js';
import { deflatePart, joinGzip } from './joined-gzip.js';

/** The OpenMetrics trailer as a part of its own, deflated once. */
const EOF_PART = {};

export type Format = 'text' | 'openmetrics';

/**
 * One immutable, fully rendered answer to /metrics. Its families' bodies are the only full copy
 * of the samples: an uncompressed answer is written from them chunk by chunk, and the gzip of a
 * format is made once (off the event loop, by zlib's thread pool) and shared by every scraper.
 * The families come in parts (one per collector): a part is deflated once and reused by the
 * following expositions until its collector polls again.
 */
export class Exposition {
  private readonly gzipped = new Map<Format, Promise<readonly Buffer[]>>();
  private readonly families: readonly RenderedFamily[];

  constructor(
    private readonly parts: readonly (readonly RenderedFamily[])[],
    /** Monotonic time (performance.now(), ms) after which a part of it is too old to serve. */
    readonly validUntil: number,
    /** Wall-clock time (ms) it was built at. */
    readonly builtAt: number,
  ) {
    this.families = parts.flat();
  }

  /** An exposition of one part. */
  static of(families: readonly RenderedFamily[], validUntil = Infinity, builtAt = 0): Exposition {
    return new Exposition([families], validUntil, builtAt);
  }

  /** The answer as a list of chunks to write one after another (deflated ones inflated as written). */
  chunks(format: Format): BodyChunk[] {
    const chunks = concatFamilies(this.families, format === 'openmetrics');
    if (format === 'openmetrics') chunks.push(OPENMETRICS_EOF);
    return chunks;
  }

  /** The answer in one buffer (a copy: for compression and tests, not for serving). */
  body(format: Format): Buffer {
    return Buffer.concat(this.chunks(format).map(chunkText));
  }

  /**
   * The gzip of the answer in a format, as pieces to write in turn: each part's deflate is the
   * buffer its part keeps, shared with every exposition that holds the part.
   */
  gzip(format: Format): Promise<readonly Buffer[]> {
    let compressed = this.gzipped.get(format);
    if (!compressed) {
      const openMetrics = format === 'openmetrics';
      const parts = this.parts.map((part) => deflatePart(part, format, () => concatFamilies(part, openMetrics)));
      if (openMetrics) parts.push(deflatePart(EOF_PART, format, () => OPENMETRICS_EOF));
      compressed = Promise.all(parts).then(joinGzip);
      this.gzipped.set(format, compressed);
    }
    return compressed;
  }

  get sampleCount(): number {
    return this.families.reduce((n, f) => n + f.samples, 0);
  }
}
