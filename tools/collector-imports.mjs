// How much a collector's author must know: the names each collector's code imports (issue 25).
// `node tools/collector-imports.mjs`: per collector, the names its collector.ts imports (from any
// module, its own metrics.ts and zod included) and the names its whole folder imports from outside
// it (the queue collector's parts too; metrics.ts left out), then the median and the maximum.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = 'src/collectors';
const IMPORT = /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/g;

function importedNames(text, keep) {
  const names = new Set();
  for (const [, list, from] of text.matchAll(IMPORT)) {
    if (!keep(from)) continue;
    for (const item of list.split(',')) {
      const name = item.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop();
      if (name) names.add(`${from}#${name}`);
    }
  }
  return names;
}

const rows = [];
for (const name of readdirSync(ROOT, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)) {
  const folder = join(ROOT, name);
  const files = readdirSync(folder).filter((f) => f.endsWith('.ts'));
  if (!files.includes('collector.ts') || name === 'kit') continue;
  const own = importedNames(readFileSync(join(folder, 'collector.ts'), 'utf8'), () => true).size;
  const outside = new Set(files.filter((f) => f !== 'metrics.ts').flatMap((f) => [...importedNames(readFileSync(join(folder, f), 'utf8'), (from) => !from.startsWith('./'))]));
  rows.push({ name, own, outside: outside.size });
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
for (const r of rows.sort((a, b) => a.own - b.own)) console.log(`${r.name.padEnd(14)} collector.ts ${String(r.own).padStart(3)}   folder from outside ${String(r.outside).padStart(3)}`);
const own = rows.map((r) => r.own);
const outside = rows.map((r) => r.outside);
console.log(`${rows.length} collectors: collector.ts imports median ${median(own)}, max ${Math.max(...own)}; folder from outside median ${median(outside)}, max ${Math.max(...outside)}`);
