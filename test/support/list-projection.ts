// What the management API's `columns=` does to a record: keeps only the listed (dotted) paths.
type Q = Record<string, unknown>;

export function project(item: Q, columns: string): Q {
  const out: Q = {};
  for (const column of columns.split(',')) {
    const path = column.split('.');
    let src: unknown = item;
    let dst: Q = out;
    for (let i = 0; i < path.length; i++) {
      const key = path[i]!;
      if (src === null || typeof src !== 'object' || !Object.hasOwn(src, key)) break;
      const value = (src as Q)[key];
      if (i === path.length - 1) dst[key] = value;
      else {
        if (value === null || typeof value !== 'object') break;
        dst[key] = (dst[key] as Q | undefined) ?? {};
        dst = dst[key] as Q;
        src = value;
      }
    }
  }
  return out;
}
