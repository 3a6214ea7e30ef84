/**
 * Bytes kept for long (a deflated chunk of lines, a family's header) in memory of their own. Node
 * hands out small buffers (`Buffer.from`, zlib's synchronous answers) as views of a shared pool, and
 * one view still held keeps its whole pool: on Node 26 (the container's, whose pool is larger) each
 * kept deflated chunk held a pool shared with the short-lived text it was made from (docs/development.md, "The byte path, measured").
 */
export function ownedCopy(bytes: Uint8Array): Buffer {
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  copy.set(bytes);
  return copy;
}

/** `text` in UTF-8, in memory of its own (see ownedCopy). */
export function ownedText(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
  bytes.write(text, 'utf8');
  return bytes;
}

/** The buffers one after another, in memory of their own (see ownedCopy). */
export function ownedConcat(list: readonly Uint8Array[]): Buffer {
  const bytes = Buffer.allocUnsafeSlow(list.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of list) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}
