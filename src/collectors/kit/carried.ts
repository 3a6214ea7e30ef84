/** The object a collector keeps under `key` from one poll to the next, made on first use. */
export function carried<T>(carryOver: Map<string, unknown>, key: string, create: () => T): T {
  let kept = carryOver.get(key) as T | undefined;
  if (kept === undefined) {
    kept = create();
    carryOver.set(key, kept);
  }
  return kept;
}
