// `npm run bench:report`: writes docs/performance.md from bench/results/*.json (performance-doc.ts).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../run/settings.js';
import { performanceDoc, readResults } from './performance-doc.js';

const target = path.join(ROOT, 'docs/performance.md');
fs.writeFileSync(target, performanceDoc(readResults(path.join(ROOT, 'bench/results'))));
console.log(`written ${path.relative(ROOT, target)}`);
