import { z } from 'zod';

/**
 * `collectors.<x>.rates` where a collector serves `_details.rate` gauges per field: true (all),
 * false (none), or the list of fields whose rate gauges are served (e.g. `[publish, deliver_get]`).
 */
export function ratesOptionSchema(byDefault: boolean) {
  return z.union([z.boolean(), z.array(z.string())]).default(byDefault);
}

export type RatesOption = boolean | readonly string[];

/** The option as the field tables read it: all, none, or a set of fields. */
export type RateSelection = boolean | ReadonlySet<string>;

export function rateSelection(option: RatesOption): RateSelection {
  return typeof option === 'boolean' ? option : new Set(option);
}

export function wantsRate(selection: RateSelection, field: string): boolean {
  return typeof selection === 'boolean' ? selection : selection.has(field);
}

export function wantsAnyRate(selection: RateSelection): boolean {
  return typeof selection === 'boolean' ? selection : selection.size > 0;
}
