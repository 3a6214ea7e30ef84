import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedFiles } from './dashboards/generate.js';
import { replaceThresholds } from './dashboards/thresholds-doc.js';

/**
 * `npm run dashboards`: rewrites dashboards/ (Grafana dashboards, Prometheus rules and their
 * promtool tests) from the catalogue, and the threshold table of docs/runbook.md.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
for (const [path, content] of generatedFiles()) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
  process.stdout.write(`wrote ${path}\n`);
}
const runbook = join(root, 'docs', 'runbook.md');
writeFileSync(runbook, replaceThresholds(readFileSync(runbook, 'utf8')));
process.stdout.write('updated docs/runbook.md thresholds\n');
