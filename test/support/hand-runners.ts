/**
 * A target's own collector runners, as src/target.ts wires them (client, state, snapshot,
 * failure log, naming, shard), never started: tests poll them by hand (`await runner.pollOnce()`)
 * against a simulated or reflecting upstream. Each finished poll schedules the target's next
 * exposition, as in the exporter.
 *
 * The Target keeps its runners to itself; the element access below is checked by the compiler,
 * so a rename in target.ts or collector-runner.ts fails here, not silently.
 */
import type { CollectorRunner } from '../../src/pipeline/collector-runner.js';
import type { Target } from '../../src/target.js';

/** The target's runners, in its configuration's order, or those of `names`, in that order. */
export function handRunners(target: Target, names?: readonly string[]): CollectorRunner[] {
  // biome-ignore lint/complexity/useLiteralKeys: private to Target; TypeScript checks element access to it
  const runners = target['runners'];
  if (names === undefined) return [...runners];
  return names.map((name) => {
    // biome-ignore lint/complexity/useLiteralKeys: private to CollectorRunner, checked the same way
    const runner = runners.find((r) => r['collector'].name === name);
    if (!runner) throw new Error(`target ${target.name} runs no collector ${name} (disabled, or not on this shard?)`);
    return runner;
  });
}
