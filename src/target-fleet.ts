import type { TargetSetup } from './config/exporter-config.js';
import type { Target } from './target.js';

/**
 * Where target `index` of `count` starts its first polls: spread evenly over its interval, so
 * 10,000 targets do not all ask at once (one target starts at once, as it always did).
 */
export function firstPollOffsetMs(index: number, count: number, intervalMs: number): number {
  return count <= 1 ? 0 : Math.floor((intervalMs * index) / count);
}

export interface MadeTargets {
  /** One per setup, in the configuration's order. */
  all: Target[];
  /** Those made new (not reused), started by startTargets. */
  made: Target[];
}

/**
 * The targets of `setups`, one step per target (see runInSlices): `reuse` gives a running target
 * that stays as it is (an unchanged one on reload), `make` a new one, not started. `added` sees each
 * at once, so what was made so far is served while the rest is made. Stops early when `stopping`.
 */
export function* makeTargets(
  setups: readonly TargetSetup[],
  reuse: (setup: TargetSetup) => Target | undefined,
  make: (setup: TargetSetup) => Target,
  stopping: () => boolean,
  added: (target: Target) => void = () => {},
): Generator<void, MadeTargets> {
  const all: Target[] = [];
  const made: Target[] = [];
  for (const setup of setups) {
    if (stopping()) break;
    let target = reuse(setup);
    if (!target) {
      target = make(setup);
      made.push(target);
    }
    all.push(target);
    added(target);
    yield;
  }
  return { all, made };
}

/**
 * Starts the targets, one step each, their first polls spread over their interval. Run after all
 * of a configuration's targets are made: no target polls before, so /-/ready (every target polled
 * once) cannot pass on part of the list.
 */
export function* startTargets(targets: readonly Target[], stopping: () => boolean): Generator<void, void> {
  for (const [i, target] of targets.entries()) {
    if (stopping()) return;
    target.start(firstPollOffsetMs(i, targets.length, target.setup.poll.intervalMs));
    yield;
  }
}

/** At most `max` names for a log line, and how many more there are. */
export function namesForLog(targets: readonly Target[], max = 20): { names: string[]; more: number } {
  return { names: targets.slice(0, max).map((t) => t.setup.target.name), more: Math.max(0, targets.length - max) };
}
