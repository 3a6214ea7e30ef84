/**
 * Regular expressions from the configuration run against every name the broker lists, names that
 * anyone who may declare a queue chooses. JavaScript's engine backtracks: a repeated group that
 * itself repeats or alternates (`^(a+)+$`, `(a|a)*`) or a back-reference takes exponential time
 * on a crafted name, and many unbounded repeats in a row take polynomial time of a high degree.
 * Such patterns are refused when the configuration is read, with what to write instead; the rest
 * run in time bounded by a small power of the name's length (RabbitMQ names are at most 255 bytes).
 */

/** Unbounded repeats (`*`, `+`, `{n,}`) one pattern may hold: 255³ steps at most per name. */
const MAX_UNBOUNDED_REPEATS = 3;

interface Group {
  /** A repeat or an alternation inside: repeating the group backtracks exponentially. */
  branches: boolean;
}

/** Why `pattern` is refused, or undefined when it compiles and runs in bounded time. */
export function patternProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return `not a valid regular expression: ${(error as Error).message}`;
  }
  const stack: Group[] = [{ branches: false }];
  let unbounded = 0;
  let i = 0;
  /** The repeat starting at `at`, if any: its length and whether it repeats more than once. */
  const repeatAt = (at: number): { length: number; repeats: boolean; unbounded: boolean } | undefined => {
    const c = pattern[at];
    let length: number;
    let repeats: boolean;
    let open = false;
    if (c === '*' || c === '+') {
      length = 1;
      repeats = true;
      open = true;
    } else if (c === '?') {
      length = 1;
      repeats = false;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
      if (!m) return undefined;
      length = m[0].length;
      open = m[2] !== undefined && m[3] === '';
      repeats = open || (m[3] !== undefined && Number(m[3]) > 1) || (m[2] === undefined && Number(m[1]) > 1);
    } else return undefined;
    if (pattern[at + length] === '?') length++;
    return { length, repeats, unbounded: open };
  };
  const afterAtom = (groupInside?: Group): string | undefined => {
    const repeat = repeatAt(i);
    if (!repeat) return undefined;
    i += repeat.length;
    if (repeat.unbounded) unbounded++;
    if (repeat.repeats) {
      if (groupInside?.branches) return 'a repeated group holds a repeat or an alternation (as in (a+)+ or (a|b)*), which takes exponential time on some names';
      stack[stack.length - 1]!.branches = true;
    }
    return undefined;
  };
  while (i < pattern.length) {
    const c = pattern[i]!;
    let problem: string | undefined;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') return 'a back-reference (\\1, \\k<name>) takes exponential time on some names';
      i += next === 'u' && pattern[i + 2] === '{' ? pattern.indexOf('}', i) + 1 - i : 2;
      problem = afterAtom();
    } else if (c === '[') {
      // A character class is one atom: skip to its closing bracket.
      i++;
      if (pattern[i] === '^') i++;
      if (pattern[i] === ']') i++;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
      i++;
      problem = afterAtom();
    } else if (c === '(') {
      stack.push({ branches: false });
      i++;
      // (?:, (?=, (?!, (?<=, (?<!, (?<name>: the group's kind, not an atom of it.
      if (pattern[i] === '?') {
        i++;
        if (pattern[i] === '<' && pattern[i + 1] !== '=' && pattern[i + 1] !== '!') i = pattern.indexOf('>', i) + 1;
        else i += pattern[i] === '<' ? 2 : 1;
      }
    } else if (c === ')') {
      const group = stack.pop()!;
      i++;
      problem = afterAtom(group);
      // What repeats inside a group makes its enclosing group's repeat exponential too.
      if (group.branches) stack[stack.length - 1]!.branches = true;
    } else if (c === '|') {
      stack[stack.length - 1]!.branches = true;
      i++;
    } else {
      i++;
      problem = afterAtom();
    }
    if (problem) return problem;
  }
  if (unbounded > MAX_UNBOUNDED_REPEATS) {
    return `${unbounded} unbounded repeats (*, +, {n,}): at most ${MAX_UNBOUNDED_REPEATS}, or a crafted name takes polynomial time of that degree`;
  }
  return undefined;
}
