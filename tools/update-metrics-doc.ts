import { writeFileSync } from 'node:fs';
import { METRICS_DOC, metricsReference } from './metrics-reference.js';

/** `npm run docs`: rewrites docs/metrics.md from the catalogue. */
writeFileSync(new URL(`../../${METRICS_DOC}`, import.meta.url), await metricsReference());
process.stdout.write(`${METRICS_DOC} updated\n`);
