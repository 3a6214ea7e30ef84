import { ManagementError, type ManagementErrorKind } from '../../broker/errors.js';
import type { FamilyHeader, FamilyType, RenderedFamily } from '../../model/text-format.js';

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

export type WireChunk = Uint8Array | { readonly deflated: Uint8Array; readonly crc: number; readonly length: number };

export interface WireFamily {
  readonly header: WireHeader;
  readonly chunks: readonly WireChunk[];
  readonly samples: number;
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

export function familiesToWire(families: readonly RenderedFamily[]): WireFamily[] {
  return families.map((family) => ({ header: headerToWire(family.header), chunks: family.chunks, samples: family.samples }));
}

/** Clones of Buffers arrive as Uint8Arrays: made Buffers again (views, not copies). */
export function familiesFromWire(families: readonly WireFamily[]): RenderedFamily[] {
  return families.map((family) => ({
    header: family.header,
    chunks: family.chunks.map((chunk) =>
      chunk instanceof Uint8Array ? asBuffer(chunk) : { deflated: asBuffer(chunk.deflated), crc: chunk.crc, length: chunk.length },
    ),
    samples: family.samples,
  }));
}

function headerToWire(header: FamilyHeader): WireHeader {
  return header.polledBy === undefined
    ? { name: header.name, type: header.type, help: header.help }
    : { name: header.name, type: header.type, help: header.help, polledBy: header.polledBy };
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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
