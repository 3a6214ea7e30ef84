// What a V8 heap snapshot holds, summed: by kind of node, and the JS arrays by what holds them
// (the first retainer that is not weak), so a change's effect on the heap can be read off.
import fs from 'node:fs';

export interface HeapPart {
  what: string;
  count: number;
  mib: number;
}

export interface HeapSummary {
  totalMiB: number;
  /** Backing stores outside the JS heap (Buffers, typed arrays): the expositions' bytes, mostly. */
  nativeMiB: number;
  byKind: HeapPart[];
  /** JS arrays with their elements, by holder (`LabelBlock.values`: the `values` of LabelBlocks). */
  arraysByHolder: HeapPart[];
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const MiB = 2 ** 20;
const top = (parts: Map<string, { count: number; bytes: number }>, n: number): HeapPart[] =>
  [...parts].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, n).map(([what, p]) => ({ what, count: p.count, mib: p.bytes / MiB }));

function add(parts: Map<string, { count: number; bytes: number }>, key: string, bytes: number): void {
  const part = parts.get(key) ?? { count: 0, bytes: 0 };
  part.count++;
  part.bytes += bytes;
  parts.set(key, part);
}

export function summariseSnapshot(file: string, rows = 12): HeapSummary {
  const s = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const { node_fields: nf, node_types: nt, edge_fields: ef, edge_types: et } = s.snapshot.meta;
  const N = nf.length;
  const E = ef.length;
  const [TYPE, NAME, SIZE, EDGES] = ['type', 'name', 'self_size', 'edge_count'].map((f) => nf.indexOf(f)) as [number, number, number, number];
  const [ETYPE, ENAME, ETO] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f)) as [number, number, number];
  const { nodes, edges, strings } = s;
  const count = nodes.length / N;
  const typeOf = (n: number) => nt[0][nodes[n * N + TYPE]!]!;
  const nameOf = (n: number) => strings[nodes[n * N + NAME]!]!;
  const sizeOf = (n: number) => nodes[n * N + SIZE]!;
  const holder = new Int32Array(count).fill(-1);
  const holderEdge = new Int32Array(count).fill(-1);
  const elements = new Float64Array(count);
  for (let n = 0, e = 0; n < count; n++) {
    for (let k = nodes[n * N + EDGES]!; k > 0; k--, e += E) {
      const to = edges[e + ETO]! / N;
      const type = et[0][edges[e + ETYPE]!];
      if (type === 'weak') continue;
      if (holder[to] === -1) {
        holder[to] = n;
        holderEdge[to] = e;
      }
      if (type === 'internal' && strings[edges[e + ENAME]!] === 'elements') elements[n]! += sizeOf(to);
    }
  }
  const edgeName = (e: number) => {
    const type = et[0][edges[e + ETYPE]!];
    return type === 'element' || type === 'hidden' ? '[]' : strings[edges[e + ENAME]!]!;
  };
  const byKind = new Map<string, { count: number; bytes: number }>();
  const arrays = new Map<string, { count: number; bytes: number }>();
  let total = 0;
  let native = 0;
  for (let n = 0; n < count; n++) {
    const type = typeOf(n);
    const size = sizeOf(n);
    total += size;
    if (type === 'native') native += size;
    const kind = type.includes('string') ? 'strings' : type === 'object' ? nameOf(n) : type === 'array' ? `(array) ${nameOf(n)}`.trim() : `(${type})`;
    add(byKind, kind, size);
    if (type === 'object' && nameOf(n) === 'Array') {
      const h = holder[n]!;
      add(arrays, h < 0 ? '(none)' : `${nameOf(h) || `(${typeOf(h)})`}.${edgeName(holderEdge[n]!)}`, size + elements[n]!);
    }
  }
  return { totalMiB: total / MiB, nativeMiB: native / MiB, byKind: top(byKind, rows), arraysByHolder: top(arrays, rows) };
}
