import { createHash } from 'node:crypto';

/**
 * The longest label value served, in UTF-8 bytes. Every AMQP name (queue, exchange, vhost over
 * AMQP) is a short string of at most 255 bytes, so such names are never cut; what is longer came
 * through the HTTP API or from a client (connection names) and would bloat every scrape: three
 * 1 MB queue names made a 33.7 MB exposition.
 */
export const MAX_LABEL_VALUE_BYTES = 256;
/** `~` and 12 hex digits of SHA-256. */
const SUFFIX_BYTES = 13;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
/** C0 controls but tab and newline (which the text format escapes), and DEL: a raw CR, ESC or NUL would reach every reader of /metrics. */
const CONTROL = '[\\u0000-\\u0008\\u000b-\\u001f\\u007f]';
/** What a served value may not hold: replaced with U+FFFD, the value then marked with its hash. */
const UNSERVABLE = new RegExp(`${LONE_SURROGATE.source}|${CONTROL}`);
const UNSERVABLES = new RegExp(UNSERVABLE.source, 'g');

/**
 * A label value Prometheus can store and that stays distinct from every other one. Values of at
 * most MAX_LABEL_VALUE_BYTES UTF-8 bytes that are well-formed Unicode are served as they are.
 * Others (longer, or holding a lone UTF-16 surrogate, which JSON can carry but UTF-8 cannot, or
 * a control character other than tab and newline) are served as their longest prefix of at most
 * 243 bytes ending on a whole character, lone surrogates and controls replaced with U+FFFD,
 * then `~` and the first 12 hex digits of the SHA-256 of the
 * whole value's UTF-8 bytes (a lone surrogate as its 3-byte WTF-8 sequence): at most 256 bytes,
 * and two long names that share their first 243 bytes still differ. See docs/reliability.md.
 */
export function boundedLabelValue(value: string): string {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short strings need no byte count.
  const short = value.length * 3 <= MAX_LABEL_VALUE_BYTES || Buffer.byteLength(value, 'utf8') <= MAX_LABEL_VALUE_BYTES;
  const servable = !UNSERVABLE.test(value);
  if (short && servable) return value;
  const hash = createHash('sha256').update(LONE_SURROGATE.test(value) ? wtf8(value) : Buffer.from(value, 'utf8')).digest('hex').slice(0, 12);
  return `${utf8Prefix(value.replace(UNSERVABLES, '\uFFFD'), MAX_LABEL_VALUE_BYTES - SUFFIX_BYTES)}~${hash}`;
}

/** The longest prefix of a well-formed string that fits `maxBytes` UTF-8 bytes, never half a character. */
function utf8Prefix(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}

/** UTF-8, except that a lone surrogate is encoded as its own 3-byte sequence instead of U+FFFD. */
function wtf8(text: string): Buffer {
  const parts: Buffer[] = [];
  let start = 0;
  for (const match of text.matchAll(LONE_SURROGATES)) {
    const unit = match[0].charCodeAt(0);
    parts.push(Buffer.from(text.slice(start, match.index), 'utf8'), Buffer.from([0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]));
    start = match.index + 1;
  }
  parts.push(Buffer.from(text.slice(start), 'utf8'));
  return Buffer.concat(parts);
}
