import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { concatFamilies, OPENMETRICS_EOF, type RenderedFamily } from '../render/exposition.js';

const gzip = promisify(gzipCallback);

export type Format = 'text' | 'openmetrics';

/**
 * One immutable, fully rendered answer to /metrics. The text form is built eagerly; the
 * OpenMetrics form and the gzip of either are built the first time a scraper asks for them
 * and then kept, so many scrapers cost one compression.
 */
export class Exposition {
  private readonly bodies = new Map<Format, Buffer>();
  private readonly gzipped = new Map<Format, Promise<Buffer>>();

  constructor(
    private readonly families: readonly RenderedFamily[],
    /** Wall-clock time (ms) after which a part of it is too old to serve. */
    readonly validUntil: number,
    readonly builtAt: number,
  ) {
    this.bodies.set('text', Buffer.concat(concatFamilies(families, false)));
  }

  body(format: Format): Buffer {
    let body = this.bodies.get(format);
    if (!body) {
      body = Buffer.concat([...concatFamilies(this.families, true), OPENMETRICS_EOF]);
      this.bodies.set(format, body);
    }
    return body;
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
