import type { CollectorSpec } from './collector-spec.js';
import { readAhead, readNow, type FileKind, type FileSource, type FilesReadAhead } from './config-files.js';
import { ConfigError } from './config-error.js';
import type { ExporterConfig, TargetSetup } from './exporter-config.js';
import { formatIssues, sourceOf } from './messages.js';
import { resolve } from './resolve-config.js';
import { runAtOnce, runInSlices } from './run-in-slices.js';
import { configSchema } from './schema.js';
import { profileSecretFiles } from '../profiles/profiles.js';
import { resolveSharding } from './sharding.js';
import { mapping, readConfigTree, type ConfigFlags, type ConfigTree, type Env } from './sources.js';
import { resolveEntry } from './target-entries.js';

/**
 * Flags over environment over file over defaults. Throws ConfigError naming the key and its source.
 * `collectors`: every collector the exporter has (their names, defaults and option schemas).
 * Reads the files it names synchronously: for tests and tools; the exporter uses loadConfigFromDisk.
 */
export function loadConfig(flags: ConfigFlags, env: Env, collectors: readonly CollectorSpec[], files: FileSource = readNow): ExporterConfig {
  return runAtOnce(configSteps(flags, readConfigTree(flags, env, collectors.map((c) => c.name), files), env, collectors, files));
}

/**
 * loadConfig for the running exporter: the files are read asynchronously, each within a deadline,
 * and the entries of `targets:` are resolved in slices, so /metrics and /-/healthy answer while
 * a configuration of 10,000 targets is read. `previous`: a configuration this function made
 * before; it is the answer when nothing it was read from changed (see readFrom).
 */
export async function loadConfigFromDisk(flags: ConfigFlags, env: Env, collectors: readonly CollectorSpec[], previous?: ExporterConfig): Promise<ExporterConfig> {
  const given = JSON.stringify([flags, env]);
  const first = await readAhead([
    ...(flags.config ? [[flags.config, 'config'] as const] : []),
    ...profileSecretFiles(env).map((path) => [path, 'secret'] as const),
  ]);
  const before = previous && readFrom.get(previous);
  if (before && before.given === given && first.sameAs(before.first) && (await readAhead(before.namedFiles)).sameAs(before.named)) return previous!;
  const tree = readConfigTree(flags, env, collectors.map((c) => c.name), first);
  const namedFiles = filesNamedIn(tree.raw);
  const named = await readAhead(namedFiles);
  const config = await runInSlices(configSteps(flags, tree, env, collectors, first.with(named)));
  readFrom.set(config, { given, first, namedFiles, named });
  return config;
}

/**
 * What each configuration loadConfigFromDisk made was read from: flags, environment and every
 * file's bytes. The configuration is a function of them: when none changed, a reload gets the
 * configuration it compares with (the same object) without parsing, validating and resolving
 * 10,000 entries again.
 */
const readFrom = new WeakMap<ExporterConfig, { given: string; first: FilesReadAhead; namedFiles: [string, FileKind][]; named: FilesReadAhead }>();

/** The files a configuration tree names: password files and TLS files of `target` and of each entry of `targets`. */
export function filesNamedIn(raw: Record<string, unknown>): [string, FileKind][] {
  const sections = [raw.target, ...(Array.isArray(raw.targets) ? raw.targets : [])].map(mapping).filter((s) => s !== undefined);
  const named: [string, FileKind][] = [];
  for (const section of sections) {
    if (typeof section.password_file === 'string') named.push([section.password_file, 'secret']);
    const tls = mapping(section.tls) ?? {};
    for (const key of ['ca_file', 'cert_file', 'key_file']) if (typeof tls[key] === 'string') named.push([tls[key], 'tls']);
  }
  return named;
}

/** Validation and resolution, one step per entry of `targets:` (a caller may pause between steps). */
function* configSteps(flags: ConfigFlags, tree: ConfigTree, env: Env, collectors: readonly CollectorSpec[], files: FileSource): Generator<void, ExporterConfig> {
  const file = flags.config;
  const { raw, sources, shardingInFile, profileVariables } = tree;
  const schema = configSchema(collectors);

  // Entries of `targets:` are merged with the top level before the top level's defaults apply.
  const pristine = structuredClone(raw);
  const result = schema.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(formatIssues(result.error.issues, file, sources, collectors.map((c) => c.name), undefined, schema));
  }
  yield;
  const sharding = resolveSharding(result.data.sharding, env, (key) =>
    sources.has(key) || shardingInFile.has(key) ? `${sourceOf(key, file, sources)}: key "${key}"` : `the default of key "${key}"`,
  );
  const top = resolve(result.data, collectors, file, sources, files);
  const entries = result.data.targets;
  let targets: TargetSetup[] = top.targets;
  if (entries !== undefined) {
    targets = [];
    for (let i = 0; i < entries.length; i++) {
      targets.push(resolveEntry(pristine, i, schema, collectors, file, sources, files));
      yield;
    }
  }
  return { ...top, sharding, profileVariables, targets: targets.map((setup) => ({ ...setup, sharding, naming: top.naming, profiles: top.profiles })) };
}
