// Node's flags the exporter runs with (src/heap-size.ts, NODE_FLAGS), and the environment it runs
// with (LAUNCH_ENV: malloc's arenas), are given wherever it is started: npm start, npm run demo, the
// container (NODE_OPTIONS and ENV, which an operator's own replace); the tests' and benchmarks'
// spawns take them from src/heap-size.ts itself (test/harness/built-exporter.ts,
// test/process/main/young-generation.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LAUNCH_ENV, NODE_FLAGS } from '../../../src/heap-size.js';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
const dockerfile = readFileSync('Dockerfile', 'utf8');
/** The image the container runs: the Dockerfile's last stage. */
const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
const flags = NODE_FLAGS.join(' ');
/** LAUNCH_ENV as a shell's assignments before a command. */
const assignments = Object.entries(LAUNCH_ENV)
  .map(([name, value]) => `${name}=${value}`)
  .join(' ');

describe("Node's flags", () => {
  it('are given by npm start and npm run demo', () => {
    expect(pkg.scripts.start).toBe(`${assignments} node ${flags} dist/src/main.js`);
    expect(pkg.scripts.demo?.endsWith(`&& ${assignments} node ${flags} dist/demo/main.js`)).toBe(true);
  });

  it("are the container's NODE_OPTIONS, in its final stage", () => {
    const value = NODE_FLAGS.length > 1 ? `"${flags}"` : flags;
    expect(finalStage).toMatch(new RegExp(`\\bNODE_OPTIONS=${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s|$)`));
  });

  it("the environment they run with is the container's too, in its final stage", () => {
    for (const [name, value] of Object.entries(LAUNCH_ENV)) expect(finalStage).toMatch(new RegExp(`\\b${name}=${value}(\\s|$)`));
  });
});
