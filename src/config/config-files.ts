import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { ConfigError } from './config-error.js';

/**
 * The files a configuration names (the YAML file, password files, TLS files), read with bounds: a
 * path that is not a regular file (a FIFO, /dev/zero, a socket) is refused before it is opened, a
 * file above its kind's cap is refused before it is read, and a read that does not finish within
 * READ_DEADLINE_MS (a hung network mount) is given up. Messages name the path, never the content.
 */
export type FileKind = 'config' | 'secret' | 'tls';

export const FILE_CAPS: Readonly<Record<FileKind, number>> = {
  config: 4 * 1024 * 1024,
  secret: 64 * 1024,
  // CA bundles run to a few hundred kB (Mozilla's is about 220 kB).
  tls: 1024 * 1024,
};

export const READ_DEADLINE_MS = 5000;

/** Where the loader gets a file's bytes. Throws FileRefused (its message: why) or an errno error. */
export interface FileSource {
  read(path: string, kind: FileKind): Buffer;
}

export class FileRefused extends Error {}

/**
 * The file's bytes, or ConfigError `${where}: ${path} cannot be read (why)`: `where` names the key
 * and where it was set. `message` words it otherwise.
 */
export function readConfigFile(
  files: FileSource,
  path: string,
  kind: FileKind,
  where: string,
  message = (why: string) => `${where}: ${path} cannot be read (${why})`,
): Buffer {
  try {
    return files.read(path, kind);
  } catch (error) {
    throw new ConfigError(message(error instanceof FileRefused ? error.message : readFailure(error)));
  }
}

/** Reads synchronously, with the same refusals (no deadline): for tests and tools. */
export const readNow: FileSource = {
  read(path, kind) {
    refuse(statSync(path), kind);
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      // The path may have been replaced between stat and open.
      const buffer = bufferFor(fstatSync(fd), kind);
      let length = 0;
      for (let n = -1; n !== 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
      return checkedLength(buffer, length);
    } finally {
      closeSync(fd);
    }
  },
};

/** What was read ahead (readAhead): a file not read ahead is a bug, refused as such. */
export class FilesReadAhead implements FileSource {
  constructor(private readonly results: ReadonlyMap<string, Buffer | Error> = new Map()) {}

  read(path: string, kind: FileKind): Buffer {
    const result = this.results.get(key(path, kind));
    if (result === undefined) throw new FileRefused('not read ahead of the configuration: a bug, please report it');
    if (result instanceof Error) throw result;
    return result;
  }

  /** The same files with the same bytes; a file that could not be read is never the same. */
  sameAs(other: FilesReadAhead): boolean {
    if (this.results.size !== other.results.size) return false;
    for (const [k, result] of this.results) {
      const theirs = other.results.get(k);
      if (!Buffer.isBuffer(result) || !Buffer.isBuffer(theirs) || !result.equals(theirs)) return false;
    }
    return true;
  }

  /** These files and those. */
  with(other: FilesReadAhead): FilesReadAhead {
    return new FilesReadAhead(new Map([...this.results, ...other.results]));
  }
}

// A read that hangs keeps its thread of libuv's pool; the next reload waits on the same read
// instead of starting another, so a hung mount holds at most one thread per path.
const inFlight = new Map<string, SharedRead>();

/** A read in progress, and how many of its steps (stat, open, read, close) have finished. */
interface SharedRead {
  readonly pending: Promise<Buffer>;
  steps: number;
}

/** How a file is read: `stepDone` is called after each step, so that a slow but moving read is not taken for a hung one. */
export type FileRead = (path: string, kind: FileKind, stepDone: () => void) => Promise<Buffer>;

/**
 * Reads the files asynchronously: serving goes on while they are read. A read is refused when it
 * makes no progress for `deadlineMs` (a step that does not finish: a hung mount or a FIFO).
 */
export async function readAhead(
  files: Iterable<readonly [string, FileKind]>,
  deadlineMs = READ_DEADLINE_MS,
  read: FileRead = readLater,
  clock: () => number = () => performance.now(),
): Promise<FilesReadAhead> {
  const wanted = new Map<string, readonly [string, FileKind]>();
  for (const [path, kind] of files) wanted.set(key(path, kind), [path, kind]);
  const results = new Map<string, Buffer | Error>();
  await Promise.all(
    [...wanted].map(async ([k, [path, kind]]) => {
      const shared = sharedRead(path, kind, read);
      results.set(k, await withDeadline(shared, deadlineMs, clock).catch((error: Error) => error));
    }),
  );
  return new FilesReadAhead(results);
}

function sharedRead(path: string, kind: FileKind, read: FileRead): SharedRead {
  const k = key(path, kind);
  let shared = inFlight.get(k);
  if (!shared) {
    const made: { pending?: Promise<Buffer>; steps: number } = { steps: 0 };
    made.pending = read(path, kind, () => made.steps++).finally(() => inFlight.delete(k));
    shared = made as SharedRead;
    inFlight.set(k, shared);
  }
  return shared;
}

async function readLater(path: string, kind: FileKind, stepDone: () => void): Promise<Buffer> {
  refuse(await stat(path), kind);
  stepDone();
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  stepDone();
  try {
    const buffer = bufferFor(await handle.stat(), kind);
    stepDone();
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n) {
      ({ bytesRead: n } = await handle.read(buffer, length, buffer.length - length, null));
      stepDone();
    }
    return checkedLength(buffer, length);
  } finally {
    await handle.close();
  }
}

/** A deadline timer this much late was held by a busy event loop (a fleet's polls, a GC), not by the file. */
const LATE_TIMER_MS = 1000;
/** How often a late timer gives the read its wait again: a hung mount is still found on a busy loop. */
const LATE_RETRIES = 3;

/**
 * The read's bytes, or FileRefused once it made no progress for `ms`. On an event loop busy with
 * a fleet's polls each step of a read waits for a turn of the loop, and a timer may fire late,
 * before the finished step's callback (timers come first in a turn): a read that finished a step
 * since the timer was armed, or whose timer fired more than LATE_TIMER_MS late (at most
 * LATE_RETRIES times), gets the wait again. A loaded exporter of 10,000 targets refused its own
 * configuration file as a hung mount on reload.
 */
function withDeadline(read: SharedRead, ms: number, clock: () => number): Promise<Buffer> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    const wait = (retries: number) => {
      const due = clock() + ms;
      const steps = read.steps;
      timer = setTimeout(() => {
        const lateTimer = clock() - due > LATE_TIMER_MS && retries > 0;
        if (read.steps !== steps) wait(retries);
        else if (lateTimer) wait(retries - 1);
        else reject(new FileRefused(`no answer within ${ms / 1000} s: a hung mount?`));
      }, ms);
    };
    wait(LATE_RETRIES);
  });
  return Promise.race([read.pending, late]).finally(() => clearTimeout(timer));
}

function refuse(stats: Stats, kind: FileKind): void {
  if (!stats.isFile()) throw new FileRefused(`not a regular file but ${what(stats)}`);
  if (stats.size > FILE_CAPS[kind]) throw new FileRefused(tooLarge(kind));
}

/** Room for the size the file has, and one byte more to see that it grew. */
function bufferFor(stats: Stats, kind: FileKind): Buffer {
  refuse(stats, kind);
  return Buffer.alloc(stats.size + 1);
}

function checkedLength(buffer: Buffer, length: number): Buffer {
  if (length === buffer.length) throw new FileRefused('it grew while it was read; try again');
  return buffer.subarray(0, length);
}

function tooLarge(kind: FileKind): string {
  const cap = FILE_CAPS[kind];
  const size = cap >= 1024 * 1024 ? `${cap / (1024 * 1024)} MiB` : `${cap / 1024} KiB`;
  return `larger than ${size}, the most a ${kind === 'config' ? 'configuration file' : kind === 'secret' ? 'password file' : 'TLS file'} may hold`;
}

function what(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  return 'not a file';
}

function key(path: string, kind: FileKind): string {
  return `${kind}\0${path}`;
}

/** Why a file could not be read, in words (ENOENT → no such file). */
export function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const words: Record<string, string> = { ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'it is a directory', ENOTDIR: 'a part of the path is not a directory', ELOOP: 'too many symbolic links' };
  return (code !== undefined ? words[code] : undefined) ?? (code ?? (error as Error).message);
}
