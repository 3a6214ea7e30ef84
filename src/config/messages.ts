import type { z } from 'zod';
import { closestKey, knownKeysAt } from './key-suggestion.js';

/** How a key is named in messages: the path in the merged tree, as the operator wrote it. */
export type KeyName = (dotted: string) => string;
export const sameKey: KeyName = (dotted) => dotted;

/** Which flag or environment variable set a key (dotted path → "flag --poll.interval"); absent: the file or a default. */
export type KeySources = ReadonlyMap<string, string>;

/** The schema's complaints, one line each, naming each key and where its value came from. */
export function formatIssues(
  issues: readonly z.core.$ZodIssue[],
  file: string | undefined,
  sources: KeySources,
  knownCollectors: readonly string[],
  keyName: KeyName = sameKey,
  schema?: z.ZodType,
): string {
  const lines = issues.flatMap((issue) => {
    const base = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      const known = schema ? knownKeysAt(schema, issue.path) : [];
      return issue.keys.map((key) => {
        const meant = closestKey(key, known);
        const extra = `${meant ? ` (did you mean "${meant}"?)` : ''}${hint(base, knownCollectors)}`;
        return describe(pathText([...issue.path, key]), 'unknown key', file, sources, keyName, extra);
      });
    }
    return [describe(pathText(issue.path), issue.message, file, sources, keyName)];
  });
  return `invalid configuration:\n  ${lines.join('\n  ')}`;
}

/** `targets[1].url`: list positions in brackets, keys joined by dots. */
function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text === '' ? String(segment) : `${text}.${String(segment)}`), '');
}

function describe(dotted: string, message: string, file: string | undefined, sources: KeySources, keyName: KeyName, extra = ''): string {
  const key = keyName(dotted) || '(top level)';
  return `${sourceOf(dotted, file, sources, keyName)}: key "${key}": ${message}${extra}`;
}

/** Where a key's value came from: a flag or variable sets only the top level's keys. */
export function sourceOf(dotted: string, file: string | undefined, sources: KeySources, keyName: KeyName = sameKey): string {
  const fromFile = file ? `config file ${file}` : 'defaults';
  return keyName(dotted) === dotted ? (sources.get(dotted) ?? fromFile) : fromFile;
}

function hint(parent: string[], knownCollectors: readonly string[]): string {
  if (parent.length === 1 && parent[0] === 'collectors') {
    return ` (known collectors: ${knownCollectors.join(', ')})`;
  }
  return '';
}
