/**
 * CRC-32 (the gzip polynomial, reflected) of two byte strings joined, from their CRCs and the
 * second one's length: what zlib's crc32_combine computes, which Node does not expose. With it the
 * trailer of a gzip stream made of parts needs each part's CRC once, not a pass over every byte of
 * the exposition each time one part changes (after every poll of any collector).
 */
const POLY = 0xedb88320;

/** a(x)·b(x) modulo the CRC polynomial, both reflected. */
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000;
  let product = 0;
  for (;;) {
    if ((a & m) !== 0) {
      product ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = (b & 1) !== 0 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) modulo the polynomial, for k = 0..31. */
const X_POW_2K: number[] = [];
for (let k = 0, p = 0x40000000; k < 32; k++, p = multiplyModP(p, p)) X_POW_2K.push(p);

/** x^(8·n) modulo the polynomial: shifting a CRC over n zero bytes. */
function xPow8n(n: number): number {
  let result = 0x80000000;
  for (let k = 3; n > 0; n = Math.floor(n / 2), k++) {
    if (n % 2 === 1) result = multiplyModP(X_POW_2K[k & 31]!, result);
  }
  return result;
}

/**
 * xPow8n of lengths seen: a gzip answer at 100k queues joins ~8,700 deflated chunks, each combined
 * into the trailer's CRC, and each new exposition joins the unchanged ones again.
 */
const shifts = new Map<number, number>();
const SHIFTS_KEPT = 65_536;

function shiftOver(length: number): number {
  let shift = shifts.get(length);
  if (shift === undefined) {
    shift = xPow8n(length);
    if (shifts.size >= SHIFTS_KEPT) shifts.clear();
    shifts.set(length, shift);
  }
  return shift;
}

/** CRC-32 of A followed by B, from crc(A), crc(B) and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multiplyModP(shiftOver(lengthB), crcA >>> 0) ^ crcB) >>> 0;
}
