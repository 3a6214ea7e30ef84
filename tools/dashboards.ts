import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generatedFiles } from './dashboards/generate.js';
import { DEFAULT_RUNBOOK_URL, RUNBOOK_URL_OPTION, checkRunbookUrl } from './dashboards/runbook-url.js';
import { replaceShipped } from './dashboards/shipped-doc.js';
import { replaceThresholds } from './dashboards/thresholds-doc.js';

/**
 * `npm run dashboards [-- --runbook-url URL]`: rewrites dashboards/ (Grafana dashboards,
 * Prometheus rules and their promtool tests) from the catalogue, the threshold table of
 * docs/runbook.md and the list of dashboards and alerts in docs/dashboards.md. The alerts'
 * runbook_url is URL#<alert> (default: the placeholder of runbook-url.ts).
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let runbookUrl: string;
try {
  const { values } = parseArgs({ options: { [RUNBOOK_URL_OPTION.slice(2)]: { type: 'string', default: DEFAULT_RUNBOOK_URL } } });
  runbookUrl = checkRunbookUrl(String(values[RUNBOOK_URL_OPTION.slice(2)]));
} catch (error) {
  process.stderr.write(`npm run dashboards: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
for (const [path, content] of generatedFiles(runbookUrl)) {
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
