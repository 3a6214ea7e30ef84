/**
 * The answer of a list path as a list; anything else (an object, null, text) is an error of that
 * request naming the path, which fails the collector's poll (or its part).
 */
export function expectList<T = unknown>(answer: unknown, path: string): T[] {
  if (!Array.isArray(answer)) throw new Error(`${path} did not answer a JSON list (got ${describe(answer)})`);
  return answer as T[];
}

function describe(answer: unknown): string {
  if (answer === null) return 'null';
  if (answer === undefined) return 'nothing';
  if (typeof answer === 'object') return 'an object';
  return `a ${typeof answer}`;
}
