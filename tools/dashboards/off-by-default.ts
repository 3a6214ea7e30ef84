import { catalogue } from '../../src/collectors/catalogue.js';
import { COLLECTORS } from '../../src/collectors/registry.js';
import type { MetricDef } from '../../src/model/metric-def.js';

/** Every family by name, its _per_second gauge too. */
const BY_NAME = new Map<string, MetricDef>(catalogue(COLLECTORS).flatMap((def) => [[def.name, def] as const, ...(def.rate ? [[def.rate.name, def.rate] as const] : [])]));

const COLLECTOR_ON = new Map(COLLECTORS.map((collector) => [collector.name, collector.defaultEnabled]));

/** The setting that turns a family on when it is off at the defaults (its collector's, or its collector's option). */
export function settingFor(def: MetricDef): string | undefined {
  if (COLLECTOR_ON.get(def.owner) === false) return `collectors.${def.owner}.enabled`;
  if (def.option) return `collectors.${def.owner}.${def.option}`;
  return undefined;
}

/**
 * What a panel shows where its queries have no data (Grafana's noValue) when each of them reads a
 * family that is off at the defaults: the settings that turn them on, rather than "No data". A
 * query with `or` has data if either side has, so it never counts as off.
 */
export function noValueText(exprs: readonly string[]): string | undefined {
  const settings = new Set<string>();
  for (const expr of exprs) {
    if (/\sor\s/.test(expr)) return undefined;
    const needed = (expr.match(/rabbitmq_[a-z0-9_]+/g) ?? []).flatMap((name) => {
      const def = BY_NAME.get(name);
      const setting = def && settingFor(def);
      return setting ? [setting] : [];
    });
    if (needed.length === 0) return undefined;
    for (const setting of needed) settings.add(setting);
  }
  return settings.size === 0 ? undefined : `No data. Off by default: needs ${[...settings].sort().join(' and ')}`;
}
