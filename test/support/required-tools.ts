// One rule for the outside programs the tests use (a RabbitMQ node, promtool): where REQUIRE_BROKER
// is set, as .ci/run sets it, they must be there and their tests fail instead of skipping; elsewhere
// a test that needs a missing one is reported as skipped, never passed.
import { spawnSync } from 'node:child_process';

/** REQUIRE_BROKER set to anything but '', '0' or 'false'. */
export function toolsRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.REQUIRE_BROKER;
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** promtool's command (PROMTOOL_BIN overrides). */
export const PROMTOOL = process.env.PROMTOOL_BIN ?? 'promtool';

/** Whether promtool runs here. */
export const promtoolInstalled = spawnSync(PROMTOOL, ['--version'], { stdio: 'ignore' }).status === 0;

/** Skip a promtool test only where promtool is missing and not required (vitest's skipIf). */
export const skipWithoutPromtool = !promtoolInstalled && !toolsRequired();

/** `promtool check metrics` on a text exposition: what it printed, and its exit status. */
export function promtoolCheckMetrics(text: string): { output: string; status: number | null } {
  const result = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (result.error) throw new Error(`${PROMTOOL} could not run (apt-get install prometheus, or set PROMTOOL_BIN): ${result.error.message}`);
  return { output: `${result.stdout}${result.stderr}`, status: result.status };
}
