import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { timingsFromLog } from './from-log.js';
import type { CiTimings } from './record.js';
import { testTimingsSection, withSection } from './doc-section.js';

/**
 * `npm run docs:test-timings -- [--after DIR/timings.json] [--before-log LOG --before-commit C]`:
 * keeps a run's timings in .ci/timings/ (after.json from .ci/run's test-results/timings.json,
 * before.json read from the output of a .ci/run before test/runner/run-tests.ts), then writes the table
 * of docs/development.md from the two files there.
 */
const TIMINGS = '.ci/timings';
const DOC = 'docs/development.md';

const { values } = parseArgs({ options: { after: { type: 'string' }, 'before-log': { type: 'string' }, 'before-commit': { type: 'string' } } });
mkdirSync(TIMINGS, { recursive: true });
if (values.after) copyFileSync(values.after, `${TIMINGS}/after.json`);
if (values['before-log']) {
  if (!values['before-commit']) throw new Error('--before-log needs --before-commit: the log does not say which commit it ran');
  const before = timingsFromLog(readFileSync(values['before-log'], 'utf8'), values['before-commit']);
  writeFileSync(`${TIMINGS}/before.json`, `${JSON.stringify(before, null, 1)}\n`);
}
const read = (name: string) => JSON.parse(readFileSync(`${TIMINGS}/${name}.json`, 'utf8')) as CiTimings;
writeFileSync(DOC, withSection(readFileSync(DOC, 'utf8'), testTimingsSection(read('before'), read('after'))));
console.log(`written ${DOC} from ${TIMINGS}/before.json and after.json`);
