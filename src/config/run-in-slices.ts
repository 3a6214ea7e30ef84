/** How long work runs before the event loop may serve a request (a /-/healthy within 100 ms). */
export const SLICE_MS = 20;

/**
 * Runs a generator's steps to the end, handing the event loop back every `sliceMs`: long work
 * (10,000 targets to resolve or create) goes on while requests are answered. The first slice runs
 * at once, before this returns: a small configuration is done synchronously.
 */
export async function runInSlices<T>(steps: Generator<void, T>, sliceMs = SLICE_MS): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart > sliceMs) {
      await new Promise((go) => setImmediate(go));
      sliceStart = performance.now();
    }
  }
}

/** The same steps without a pause (tests and tools, which serve nothing meanwhile). */
export function runAtOnce<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
