// Node's flags the exporter runs with (src/heap-size.ts, NODE_FLAGS) are given wherever it is
// started: npm start, npm run demo, the container (NODE_OPTIONS, which an operator's own replaces);
// the tests' and benchmarks' spawns take them from NODE_FLAGS itself (test/harness/built-exporter.ts,
// test/process/main/young-generation.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../../../src/heap-size.js';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
const dockerfile = readFileSync('Dockerfile', 'utf8');
const flags = NODE_FLAGS.join(' ');

describe("Node's flags", () => {
  it('are given by npm start and npm run demo', () => {
    expect(pkg.scripts.start).toBe(`node ${flags} dist/src/main.js`);
    expect(pkg.scripts.demo).toMatch(new RegExp(`&& node ${flags} dist/demo/main\\.js$`));
  });

  it("are the container's NODE_OPTIONS, in its final stage", () => {
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const value = NODE_FLAGS.length > 1 ? `"${flags}"` : flags;
    expect(finalStage).toMatch(new RegExp(`\\bNODE_OPTIONS=${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s|$)`));
  });
});
