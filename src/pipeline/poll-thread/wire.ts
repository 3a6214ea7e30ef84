import { ManagementError, type ManagementErrorKind } from '../../broker/errors.js';
import type { FamilyHeader, FamilyType, RenderedFamily } from '../../exposition/text-format.js';
import { crc32Combine } from '../../exposition/crc32-combine.js';

/**
 * What crosses between the poll thread and the main thread: structured-clone data only (no class
 * instances, no functions). Families keep their chunks as bytes; errors keep what the scheduler
 * reads of them (ManagementError's fields, and each cause's name, message and code).
 */

export interface WireHeader {
  readonly name: string;
  readonly type: FamilyType;
  readonly help: string;
  readonly polledBy?: string;
}

/** A chunk: its bytes at [start, end) of the poll's one buffer, and for deflated lines their text's CRC-32 and length. */
type WireChunk = readonly [start: number, end: number] | readonly [start: number, end: number, crc: number, length: number];

export interface WireFamily {
  readonly header: WireHeader;
  readonly chunks: readonly WireChunk[];
  readonly samples: number;
}

/**
 * A poll's families with all their bytes in one buffer, moved to the other thread rather than
 * copied: at 100,000 queues ~8,700 chunks, each its own buffer, took the main thread tens of
 * milliseconds to receive one by one.
 */
export interface WireFamilies {
  readonly families: readonly WireFamily[];
  readonly bytes: ArrayBuffer;
}

/**
 * Deflated chunks that follow one another are sent as one, up to this much text: each ends in a
 * sync flush, so their bytes joined are the deflate of their text joined (joined-gzip.ts). At
 * 300,000 queues ~26,000 chunks, each a Buffer and an object made on the main thread and each
 * a piece of the gzip joined there, held its loop for ~160 ms after every poll (a CPU profile).
 * Bounded so that a plain-text scrape, which inflates a chunk at once, inflates a few ms at a time.
 */
const JOINED_TEXT_BYTES = 1024 * 1024;

export function familiesToWire(families: readonly RenderedFamily[]): WireFamilies {
  let total = 0;
  for (const family of families) for (const chunk of family.chunks) total += (Buffer.isBuffer(chunk) ? chunk : chunk.deflated).length;
  const bytes = new Uint8Array(new ArrayBuffer(total));
  let at = 0;
  const place = (chunk: Uint8Array): [number, number] => {
    bytes.set(chunk, at);
    at += chunk.length;
    return [at - chunk.length, at];
  };
  const wire = families.map((family) => {
    const chunks: WireChunk[] = [];
    let joined: [start: number, end: number, crc: number, length: number] | undefined;
    for (const chunk of family.chunks) {
      if (Buffer.isBuffer(chunk)) {
        joined = undefined;
        chunks.push(place(chunk));
      } else if (joined && joined[3] + chunk.length <= JOINED_TEXT_BYTES) {
        joined[1] = place(chunk.deflated)[1];
        joined[2] = crc32Combine(joined[2], chunk.crc, chunk.length);
        joined[3] += chunk.length;
      } else {
        joined = [...place(chunk.deflated), chunk.crc, chunk.length];
        chunks.push(joined);
      }
    }
    return { header: headerToWire(family.header), chunks, samples: family.samples };
  });
  return { families: wire, bytes: bytes.buffer };
}

/** The families again, their chunks views of the one buffer (kept as long as one of them is). */
export function familiesFromWire(wire: WireFamilies): RenderedFamily[] {
  const bytes = Buffer.from(wire.bytes);
  return wire.families.map((family) => ({
    header: family.header,
    chunks: family.chunks.map((chunk) => {
      const view = bytes.subarray(chunk[0], chunk[1]);
      return chunk.length === 2 ? view : { deflated: view, crc: chunk[2], length: chunk[3] };
    }),
    samples: family.samples,
  }));
}

interface WireErrorLink {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
}

export interface WireError {
  /** Set when the error is a ManagementError. */
  readonly management?: { readonly kind: ManagementErrorKind; readonly path: string; readonly detail: string; readonly status?: number };
  readonly message: string;
  /** Its causes, the nearest first (at most 8, as failureCause reads them). */
  readonly causes: readonly WireErrorLink[];
}

function headerToWire(header: FamilyHeader): WireHeader {
  return header.polledBy === undefined
    ? { name: header.name, type: header.type, help: header.help }
    : { name: header.name, type: header.type, help: header.help, polledBy: header.polledBy };
}

export function errorToWire(error: unknown): WireError {
  const causes: WireErrorLink[] = [];
  for (let e = error instanceof Error ? error.cause : undefined; e instanceof Error && causes.length < 8; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    causes.push(typeof code === 'string' ? { name: e.name, message: e.message, code } : { name: e.name, message: e.message });
  }
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof ManagementError)) return { message, causes };
  const { kind, path, detail, status } = error;
  return { management: status === undefined ? { kind, path, detail } : { kind, path, detail, status }, message, causes };
}

export function errorFromWire(wire: WireError): Error {
  let cause: Error | undefined;
  for (let i = wire.causes.length - 1; i >= 0; i--) {
    const link = wire.causes[i]!;
    const error = new Error(link.message, cause ? { cause } : undefined);
    error.name = link.name;
    if (link.code !== undefined) (error as NodeJS.ErrnoException).code = link.code;
    cause = error;
  }
  const options = cause ? { cause } : undefined;
  const m = wire.management;
  return m ? new ManagementError(m.kind, m.path, m.detail, m.status, options) : new Error(wire.message, options);
}
