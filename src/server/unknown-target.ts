/** Up to this many targets, a refusal lists them all; beyond, it counts them and names the closest. */
export const LISTED_TARGETS = 10;

const CLOSEST = 3;

/**
 * What a refused /probe says about the configured targets: all of them when few, else their count
 * and the names sharing the longest beginning with the one asked (10,000 names would make a 404
 * of hundreds of kB, for anyone who asks). One pass over the names, no sorting: cheap per request.
 */
export function knownTargets(names: readonly string[], asked?: string): string {
  if (names.length === 0) return 'no target configured';
  if (names.length <= LISTED_TARGETS) return `configured targets: ${names.join(', ')}`;
  const closest = asked === undefined ? [] : closestNames(names, asked);
  return `${names.length} targets configured${closest.length > 0 ? `; closest names: ${closest.join(', ')}` : ''}; the landing page / lists them`;
}

function closestNames(names: readonly string[], asked: string): string[] {
  const best: { name: string; shared: number }[] = [];
  for (const name of names) {
    const shared = sharedPrefix(name, asked);
    if (shared === 0 || (best.length === CLOSEST && shared <= best[CLOSEST - 1]!.shared)) continue;
    best.push({ name, shared });
    best.sort((a, b) => b.shared - a.shared);
    if (best.length > CLOSEST) best.pop();
  }
  return best.map((b) => JSON.stringify(b.name));
}

function sharedPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
