// Small helpers shared by the unit tests: reading an exposition back into values, and fixtures.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Repository root (two levels above test/unit/support). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export function fixturePath(dir: string, file: string): string {
  return fileURLToPath(new URL(`../../fixtures/${dir}/${file}`, import.meta.url));
}

export function readFixture<T = unknown>(dir: string, file: string): T {
  return JSON.parse(readFileSync(fixturePath(dir, file), 'utf8')) as T;
}

/**
 * Sample lines of a text exposition as `series → value`, where series is the line up to the
 * last space exactly as rendered (`name{a="x"}`). Fails on a duplicated series.
 */
export function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    const series = line.slice(0, space);
    const raw = line.slice(space + 1);
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    if (out.has(series)) throw new Error(`series ${series} appears twice`);
    out.set(series, value);
  }
  return out;
}

/** Names (before `{`) of every series in a text exposition. */
export function seriesNames(text: string): Set<string> {
  return new Set([...samples(text).keys()].map((s) => s.replace(/\{.*$/, '')));
}

/** Series of one family, optionally only those whose labels contain `labelPart`. */
export function seriesOf(text: string, name: string, labelPart = ''): Map<string, number> {
  const out = new Map<string, number>();
  for (const [series, value] of samples(text)) {
    const base = series.replace(/\{.*$/, '');
    if (base === name && series.includes(labelPart)) out.set(series, value);
  }
  return out;
}
