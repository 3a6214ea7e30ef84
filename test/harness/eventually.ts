// Waiting for something that happens on its own time (a poll, a broker's statistics refresh, a
// log line): the one way tests and benchmarks wait, with a deadline and a message saying what
// never came.

/**
 * Calls `check` until it returns a value other than undefined and returns that value. A `check`
 * that throws (a failed `expect`, a refused connection) is called again; after `timeoutMs` the
 * error names `what` and the last error thrown, so a check can throw to say what it saw last.
 */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
