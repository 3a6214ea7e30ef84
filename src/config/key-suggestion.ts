import type { z } from 'zod';

/**
 * The keys a schema accepts at `path` (an object's own keys; list positions select the list's
 * element; defaults, optionals and pipes looked through), or none where the path leads to no object.
 */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: z.ZodType | undefined = schema;
  for (const segment of path) {
    const inner: Unwrapped | undefined = node === undefined ? undefined : unwrapped(node);
    node = typeof segment === 'number' ? inner?.element : inner?.shape?.[String(segment)];
  }
  const shape = node === undefined ? undefined : unwrapped(node)?.shape;
  return shape ? Object.keys(shape) : [];
}

/** The known key closest to a mistyped one, when it is close enough to be what was meant. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  // A third of the key's length, at least one edit: `intervall` → `interval`, `timout` → `timeout`.
  return best && best.distance <= Math.max(1, Math.floor(key.length / 3)) ? best.name : undefined;
}

interface Unwrapped {
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
}

/** The object's shape or the list's element beneath defaults, optionals and pipes. */
function unwrapped(node: z.ZodType): Unwrapped | undefined {
  let current: z.ZodType | undefined = node;
  for (let depth = 0; current !== undefined && depth < 20; depth++) {
    const def = current._zod.def as { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType; innerType?: z.ZodType; in?: z.ZodType };
    if (def.type === 'object') return { shape: def.shape };
    if (def.type === 'array') return { element: def.element };
    current = def.innerType ?? def.in;
  }
  return undefined;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
