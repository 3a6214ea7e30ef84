import { z } from 'zod';
import { patternProblem } from './safe-pattern.js';

/**
 * Which names a collector keeps (`collectors.<x>.vhosts`, `collectors.queues.queues`,
 * `collectors.exchanges.exchanges`): one filter, two spellings in the config file.
 * - A list of names keeps exactly those (`vhosts: [orders, billing]`); `[]` keeps every name.
 *   Where a collector can ask per vhost, a list of vhosts makes it ask for each one alone.
 * - `{include, exclude}` regular expressions: names matching `include` (a search, anchor it
 *   yourself: `^orders\\.`), except those matching `exclude`.
 */
export interface NameFilterConfig {
  readonly include?: string | undefined;
  readonly exclude?: string | undefined;
  /** The list spelling; absent for `{include, exclude}`. */
  readonly names?: readonly string[] | undefined;
}

const patterns = z
  .strictObject({
    /** Only names matching this (anchored yourself: `^orders\\.`) are kept. */
    include: z.string().optional(),
    /** Names matching this are dropped, even when included. */
    exclude: z.string().optional(),
  })
  .superRefine((value, ctx) => {
    for (const key of ['include', 'exclude'] as const) {
      const pattern = value[key];
      if (pattern === undefined) continue;
      const problem = patternProblem(pattern);
      if (problem) ctx.addIssue({ code: 'custom', path: [key], message: `${JSON.stringify(pattern)}: ${problem}` });
    }
  });

const names = z.array(z.string(), { error: 'a list of names (strings)' }).transform((list): NameFilterConfig => (list.length === 0 ? {} : { names: list }));

/** A YAML key with only comments under it is null: treated as no filter. */
export const nameFilterSchema = z.preprocess(
  (value) => value ?? {},
  z.unknown().transform((value, ctx): NameFilterConfig => {
    const schema = Array.isArray(value) ? names : typeof value === 'object' ? patterns : undefined;
    if (!schema) {
      ctx.addIssue({ code: 'custom', message: 'expected a list of names (exact matches) or {include, exclude} (regular expressions)' });
      return z.NEVER;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return z.NEVER;
  }),
);

export class NameFilter {
  private readonly include: RegExp | undefined;
  private readonly exclude: RegExp | undefined;
  private readonly names: ReadonlySet<string> | undefined;

  constructor(config: NameFilterConfig) {
    this.include = config.include === undefined ? undefined : new RegExp(config.include, 'u');
    this.exclude = config.exclude === undefined ? undefined : new RegExp(config.exclude, 'u');
    this.names = config.names === undefined || config.names.length === 0 ? undefined : new Set(config.names);
  }

  /** The names of the list spelling (each once, in order), or undefined for patterns or no filter. */
  get exactNames(): readonly string[] | undefined {
    return this.names && [...this.names];
  }

  /** No names, no patterns: every name matches. */
  get matchesEvery(): boolean {
    return !this.names && !this.include && !this.exclude;
  }

  matches(name: string): boolean {
    if (this.names && !this.names.has(name)) return false;
    if (this.include && !this.include.test(name)) return false;
    if (this.exclude?.test(name)) return false;
    return true;
  }
}
