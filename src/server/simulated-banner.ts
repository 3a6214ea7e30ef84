import type { TargetStatus } from '../pipeline/target-status.js';
import { escapeHtml } from './target-section.js';

export const SIMULATED_STYLE = '.simulated{background:#ffe082;border:2px solid #e08a00;padding:.6em 1em;font-weight:bold}';

/**
 * The banner on top of the page when a target shown is a simulator, not a broker (the exporter's
 * demo): whoever looks at the page or the dashboards must not take its figures for a cluster's.
 */
export function simulatedBanner(shown: readonly TargetStatus[]): string {
  const simulations = [...new Set(shown.flatMap((t) => (t.broker?.simulation ? [t.broker.simulation] : [])))];
  if (simulations.length === 0) return '';
  return `<p class="simulated">SIMULATED: no RabbitMQ is watched here. The management API answering is ${escapeHtml(simulations.join('; '))}; every figure is made up (series carry rabbitmq_simulated_info).</p>`;
}
