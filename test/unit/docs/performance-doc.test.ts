import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { performanceDoc, readResults } from '../../../bench/report/performance-doc.js';
import { REPO_ROOT } from '../../support/fixtures.js';

describe('docs/performance.md', () => {
  const results = readResults(join(REPO_ROOT, 'bench/results'));

  it('is what bench/results/*.json make of it (regenerating gives the same bytes)', () => {
    const committed = readFileSync(join(REPO_ROOT, 'docs/performance.md'), 'utf8');
    expect(committed, 'docs/performance.md is out of date with bench/results/*.json: run `npm run bench:report`').toBe(performanceDoc(results));
  });

  it('names every results file it draws on', () => {
    const doc = performanceDoc(results);
    for (const name of results.keys()) expect(doc, name).toContain(`bench/results/${name}`);
  });

  it('changes when a figure in a results file changes', () => {
    const changed = new Map(results);
    const fleet = structuredClone(changed.get('fleet.json')) as { runs: { listenSeconds: number }[] };
    fleet.runs[0]!.listenSeconds += 1;
    changed.set('fleet.json', fleet);
    expect(performanceDoc(changed)).not.toBe(performanceDoc(results));
  });
});
