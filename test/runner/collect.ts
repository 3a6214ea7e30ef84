import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commit, machine } from './machine.js';
import type { CiTimings, RunRecord } from './record.js';

/**
 * The last step of .ci/run: `node dist/test/runner/collect.js DIR NAME=SECONDS...` joins
 * each Node's run (DIR/<node>/run.json, written by test/runner/run-tests.ts) and the sections' seconds
 * into DIR/timings.json, with the commit and the machine. `npm run docs:test-timings -- --after DIR/timings.json` makes
 * docs/development.md's table from it.
 */
const [dir, ...pairs] = process.argv.slice(2);
if (!dir) throw new Error('usage: collect.js DIR NAME=SECONDS...');
const sections = pairs.map((pair) => {
  const at = pair.lastIndexOf('=');
  return { name: pair.slice(0, at), seconds: Number(pair.slice(at + 1)) };
});
const runs: RunRecord[] = readdirSync(dir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'run.json')))
  .map((e) => JSON.parse(readFileSync(join(dir, e.name, 'run.json'), 'utf8')) as RunRecord)
  .sort((a, b) => a.node.localeCompare(b.node, 'en', { numeric: true }));
const timings: CiTimings = { commit: commit(), machine: machine(), command: 'CI=true bash .ci/run </dev/null (a fresh clone)', sections, runs };
writeFileSync(join(dir, 'timings.json'), `${JSON.stringify(timings, null, 1)}\n`);
console.log(`test timings of ${runs.map((r) => `Node ${r.node}`).join(' and ')} in ${join(dir, 'timings.json')}`);
