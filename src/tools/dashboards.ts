import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedFiles } from './dashboards/generate.js';
import { replaceShipped } from './dashboards/shipped-doc.js';
import { replaceThresholds } from './dashboards/thresholds-doc.js';

/**
 * `npm run dashboards`: rewrites dashboards/ (Grafana dashboards, Prometheus rules and their
 * promtool tests) from the catalogue, the threshold table of docs/runbook.md and the list of
 * dashboards and alerts in docs/dashboards.md.
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
const guide = join(root, 'docs', 'dashboards.md');
writeFileSync(guide, replaceShipped(readFileSync(guide, 'utf8')));
process.stdout.write('updated docs/dashboards.md list of dashboards and alerts\n');
