import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { METRICS_DOC, metricsReference } from '../../../tools/metrics-reference.js';
import { catalogue } from '../../../src/collectors/catalogue.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { REPO_ROOT } from '../../support/fixtures.js';

describe('docs/metrics.md', () => {
  it('is up to date with the catalogue', async () => {
    const committed = readFileSync(join(REPO_ROOT, METRICS_DOC), 'utf8');
    expect(committed, `${METRICS_DOC} is out of date: run \`npm run docs\``).toBe(await metricsReference());
  });

  it('documents every family of the catalogue', async () => {
    const reference = await metricsReference();
    for (const def of catalogue(COLLECTORS)) expect(reference, def.name).toContain(`| \`${def.name}\` | ${def.type} |`);
    expect(reference).toContain('| `process_cpu_user_seconds_total` | counter |');
  });
});

describe('README.md', () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

  it('links only to documents that exist', () => {
    for (const [, target] of readme.matchAll(/\]\(((?:docs|storefront|deploy)\/[^)#]+)/g)) {
      expect(() => readFileSync(join(REPO_ROOT, target!)), target).not.toThrow();
    }
  });
});
