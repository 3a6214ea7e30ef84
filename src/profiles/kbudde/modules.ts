/**
 * kbudde/rabbitmq_exporter's modules (its RABBIT_EXPORTERS, its `module` label) and the collector
 * of ours that carries each one's families (docs/kbudde-mapping.md, "Exporter"). `memory` is the
 * nodes collector's memory breakdown; `aliveness` its aliveness test among the health checks.
 */
export const KBUDDE_MODULE_COLLECTORS = {
  overview: 'overview',
  queue: 'queues',
  exchange: 'exchanges',
  node: 'nodes',
  connections: 'connections',
  shovel: 'shovels',
  federation: 'federation',
  memory: 'nodes',
  aliveness: 'health_checks',
} as const;

export type KbuddeModule = keyof typeof KBUDDE_MODULE_COLLECTORS;
export const KBUDDE_MODULES = Object.keys(KBUDDE_MODULE_COLLECTORS) as KbuddeModule[];

/**
 * The kbudde modules an enabled collector with these options stands for: none for a collector
 * kbudde has no module for. The nodes collector is `memory` too when it asks for the memory
 * breakdown; the health checks are `aliveness` only when they run the aliveness test.
 */
export function kbuddeModulesOf(collector: string, options: Readonly<Record<string, unknown>>): KbuddeModule[] {
  return KBUDDE_MODULES.filter((module) => {
    if (KBUDDE_MODULE_COLLECTORS[module] !== collector) return false;
    if (module === 'memory') return options.memory_breakdown !== false;
    if (module === 'aliveness') return Array.isArray(options.aliveness_vhosts) && options.aliveness_vhosts.length > 0;
    return true;
  });
}
