/**
 * How a field of a broker answer becomes a label value. Three meanings, one function each:
 * which one a label uses decides what a missing or odd value looks like in its series.
 */

/** A string field as it is; anything else (absent, null, a number) is ''. For names, states, versions. */
export function stringLabel(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Strings as they are, numbers and booleans as text (`true`, `5`), anything else ''. */
export function scalarLabel(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/**
 * Any value as JavaScript prints it (a list `a,b`, a table `[object Object]`), absent and null
 * ''. For the info series whose fields may hold lists or tables (queue arguments): the series
 * says a value is set even where it cannot show it.
 */
export function printedLabel(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  // As String() prints them, without calling a method of the answer: a table with a `toString`
  // key (a queue argument anyone may set) would make String() throw and fail the whole poll.
  if (Array.isArray(value)) return value.map(printedLabel).join(',');
  if (typeof value === 'object') return '[object Object]';
  return String(value);
}
