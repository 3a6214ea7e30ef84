// Where the repository and its recorded answers (test/fixtures) are, for tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Repository root (two levels above test/support). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A recorded answer under test/fixtures, parsed: `loadFixture('rabbitmq-3.10.8/connections-page1.json')`. */
export function loadFixture<T = unknown>(relative: string): T {
  return JSON.parse(readFileSync(new URL(`../fixtures/${relative}`, import.meta.url), 'utf8')) as T;
}

/** The same, by directory and file: `readFixture('rabbitmq-3.10.8', 'overview.json')`. */
export function readFixture<T = unknown>(dir: string, file: string): T {
  return loadFixture<T>(`${dir}/${file}`);
}
