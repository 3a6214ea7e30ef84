/**
 * The demo watches its own simulated cluster only. A broker configured anywhere (flags, environment,
 * config file, kbudde's variables) would be overridden without a word, or watched beside the
 * simulation and mistaken for it; so it is refused, and the message says what set it.
 */
import type { CliFlags } from '../src/config/args.js';
import { COLLECTORS } from '../src/collectors/registry.js';
import { readConfigTree, type Env } from '../src/config/sources.js';

/** What configures a broker ("environment variable RABBITMQ_URL", "config file x.yaml"), or undefined. */
export function configuredBroker(flags: CliFlags, env: Env): string | undefined {
  const { raw, sources } = readConfigTree(flags, env, COLLECTORS.map((c) => c.name));
  // kbudde's profile writes its defaults for the target too: a default configures nothing.
  const given = (source: string) => !source.startsWith("kbudde's default");
  const fromSource = [...sources.entries()].find(([key, source]) => (key === 'target' || key.startsWith('target.')) && given(source));
  if (fromSource) return `${fromSource[1]} sets ${fromSource[0]}`;
  for (const key of ['target', 'targets'] as const) {
    if (raw[key] !== undefined) return `config file ${flags.config} sets ${key}`;
  }
  return undefined;
}

export function refusal(what: string): string {
  return `the demo (npm run demo) watches a simulated cluster and nothing else, but a broker is configured: ${what}. Unset it to see the demo, or run the exporter without the demo (npm start) to watch that broker.`;
}
