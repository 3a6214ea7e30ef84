import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { END_MARKER, metricsReference, replaceReference, START_MARKER } from '../../../src/docs/metrics-reference.js';
import { catalogue } from '../../../src/catalogue/catalogue.js';
import { REPO_ROOT } from '../support/exposition.js';

describe('README metrics reference', () => {
  it('is up to date with the catalogue', async () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const regenerated = replaceReference(readme, await metricsReference());
    expect(regenerated, 'README.md metrics reference is out of date: run `npm run docs`').toBe(readme);
  });

  it('documents every family of the catalogue', async () => {
    const reference = await metricsReference();
    for (const def of catalogue()) expect(reference, def.name).toContain(`| \`${def.name}\` | ${def.type} |`);
    expect(reference.startsWith(START_MARKER)).toBe(true);
    expect(reference.endsWith(END_MARKER)).toBe(true);
    expect(reference).toContain('| `rabbitmq_exporter_process_cpu_user_seconds_total` | counter |');
  });

  it('replaceReference swaps only the generated section', () => {
    const readme = `# T\n\nbefore\n${START_MARKER}\nold | table\n${END_MARKER}\nafter\n`;
    expect(replaceReference(readme, `${START_MARKER}\nNEW\n${END_MARKER}`)).toBe(`# T\n\nbefore\n${START_MARKER}\nNEW\n${END_MARKER}\nafter\n`);
    expect(() => replaceReference('# no markers', 'x')).toThrow('README has no');
    expect(() => replaceReference(`${END_MARKER}\n${START_MARKER}`, 'x')).toThrow('README has no');
  });
});
