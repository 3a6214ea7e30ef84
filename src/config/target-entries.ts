import type { CollectorSpec } from './collector-spec.js';
import { ConfigError } from './config-error.js';
import type { CollectorConfig, TargetSetup } from './exporter-config.js';
import { formatIssues, type KeyName, type KeySources } from './messages.js';
import { resolve } from './resolve-config.js';
import type { configSchema } from './schema.js';
import type { FileSource } from './config-files.js';
import { mapping } from './sources.js';

/**
 * The resolved collector settings of the entries of one reading (by its pristine tree) that set
 * neither `poll` nor `collectors`: those settings derive only from the top level's two sections,
 * so such entries share one array rather than holding ~5 kB each (10,000 targets: 50 MB).
 */
const inheritedCollectors = new WeakMap<object, CollectorConfig[]>();

/**
 * The i-th entry of `targets:`: its keys over the top level's target, poll and collectors, then
 * checked and resolved as a whole configuration would be. Messages name the entry's key
 * (`targets[1].url`) when the entry set it, else the top level's.
 */
export function resolveEntry(
  pristine: Record<string, unknown>,
  i: number,
  schema: ReturnType<typeof configSchema>,
  specs: readonly CollectorSpec[],
  file: string | undefined,
  sources: KeySources,
  files: FileSource,
): TargetSetup {
  const entry = (pristine.targets as Record<string, unknown>[])[i] as Record<string, unknown>;
  const { name, poll, collectors, ...own } = entry as { name: string; poll?: Record<string, unknown>; collectors?: Record<string, unknown> } & Record<string, unknown>;
  const inherited = { ...(mapping(pristine.target) ?? {}) };
  // Credentials go together: an entry's own password, password file or URL with credentials replaces the top level's.
  if ('password' in own || 'password_file' in own) {
    delete inherited.password;
    delete inherited.password_file;
  }
  if (typeof own.url === 'string' && /^[a-z]+:\/\/[^/]*@/i.test(own.url)) {
    delete inherited.username;
    delete inherited.password;
    delete inherited.password_file;
  }
  const merged: Record<string, unknown> = {
    ...pristine,
    target: deepMerge(inherited, own),
    poll: deepMerge(mapping(pristine.poll) ?? {}, poll ?? {}),
    collectors: deepMerge(mapping(pristine.collectors) ?? {}, collectors ?? {}),
  };
  delete merged.targets;

  const setByEntry = (path: readonly PropertyKey[]): boolean => {
    const [section, key, sub] = path;
    if (section === 'target') return key === undefined || key in own;
    if (section === 'poll') return poll !== undefined && (key === undefined || key in poll);
    if (section === 'collectors') {
      if (collectors === undefined || key === undefined) return collectors !== undefined;
      if (!(String(key) in collectors)) return false;
      const own = mapping(collectors[String(key)]);
      return sub === undefined || own === undefined || String(sub) in own;
    }
    return false;
  };
  const keyName: KeyName = (dotted) => {
    const path = dotted.split('.');
    if (!setByEntry(path)) return dotted;
    const [section, ...rest] = path;
    return [`targets[${i}]`, ...(section === 'target' ? rest : path)].join('.');
  };

  const result = schema.safeParse(merged);
  if (!result.success) throw new ConfigError(formatIssues(result.error.issues, file, sources, specs.map((s) => s.name), keyName, schema));
  const resolved = resolve(result.data, specs, file, sources, files, keyName);
  const setup = { ...resolved.targets[0]!, target: { ...resolved.target, name } };
  if (poll !== undefined || collectors !== undefined) return setup;
  const shared = inheritedCollectors.get(pristine);
  if (shared === undefined) inheritedCollectors.set(pristine, setup.collectors);
  else setup.collectors = shared;
  return setup;
}

/** `over`'s keys over `base`'s; mappings merge key by key, anything else (lists too) is replaced. */
function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const below = mapping(merged[key]);
    const above = mapping(value);
    merged[key] = below && above ? deepMerge(below, above) : value;
  }
  return merged;
}
