import { readFileSync, writeFileSync } from 'node:fs';
import { metricsReference, replaceReference } from '../docs/metrics-reference.js';

/** `npm run docs`: rewrites the metrics reference in README.md from the catalogue. */
const path = new URL('../../../README.md', import.meta.url);
const readme = readFileSync(path, 'utf8');
writeFileSync(path, replaceReference(readme, await metricsReference()));
process.stdout.write('README.md metrics reference updated\n');
