import { z } from 'zod';

/** `include`/`exclude` regular expressions for names, as they appear in the config file. */
const filterObject = z
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
      try {
        new RegExp(pattern, 'u');
      } catch (error) {
        ctx.addIssue({ code: 'custom', path: [key], message: `not a valid regular expression: ${(error as Error).message}` });
      }
    }
  });

/** A YAML key with only comments under it is null: treated as no filter. */
export const nameFilterSchema = z.preprocess((value) => value ?? {}, filterObject);

export type NameFilterConfig = z.infer<typeof filterObject>;

export class NameFilter {
  private readonly include: RegExp | undefined;
  private readonly exclude: RegExp | undefined;

  constructor(config: NameFilterConfig) {
    this.include = config.include === undefined ? undefined : new RegExp(config.include, 'u');
    this.exclude = config.exclude === undefined ? undefined : new RegExp(config.exclude, 'u');
  }

  get isActive(): boolean {
    return this.include !== undefined || this.exclude !== undefined;
  }

  get includePattern(): string | undefined {
    return this.include?.source;
  }

  matches(name: string): boolean {
    if (this.include && !this.include.test(name)) return false;
    if (this.exclude?.test(name)) return false;
    return true;
  }
}
