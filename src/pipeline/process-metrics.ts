import { collectDefaultMetrics, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { renderLabels, formatValue, type FamilyType, type RenderedFamily } from '../exposition/text-format.js';

/**
 * Node's process and runtime metrics under their standard names (`process_*`, `nodejs_*`, as every
 * exporter serves them, so the usual dashboards and rules find them), from prom-client's default
 * collectors on a private registry. They are read when the snapshot is assembled, not per scrape, and rendered with
 * the same renderer as everything else (so OpenMetrics needs no prom-client switch).
 */
export class ProcessMetrics {
  private readonly registry = new Registry();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  async families(): Promise<RenderedFamily[]> {
    const metrics = (await this.registry.getMetricsAsJSON()) as MetricObjectWithValues<MetricValue<string>>[];
    return metrics.filter(isConventional).map((metric) => {
      let body = '';
      for (const sample of metric.values) {
        const labels = (sample.labels ?? {}) as Record<string, string | number>;
        const names = Object.keys(labels);
        const name = (sample as { metricName?: string }).metricName ?? metric.name;
        body += `${name}${renderLabels(names, names.map((n) => String(labels[n])))} ${formatValue(sample.value)}\n`;
      }
      return {
        header: { name: metric.name, type: String(metric.type) as FamilyType, help: metric.help },
        chunks: [Buffer.from(body)],
        samples: metric.values.length,
      };
    });
  }

  /** Names of the families, for the metrics reference. */
  async names(): Promise<{ name: string; type: string; help: string }[]> {
    const metrics = await this.registry.getMetricsAsJSON();
    return metrics.filter(isConventional).map((m) => ({ name: m.name, type: String(m.type), help: m.help }));
  }
}

/**
 * prom-client also serves nodejs_active_*_total as gauges, which promtool rejects (a gauge
 * must not end in _total); their un-suffixed twins carry the same numbers.
 */
function isConventional(metric: { name: string; type: unknown }): boolean {
  return !(String(metric.type) !== 'counter' && metric.name.endsWith('_total'));
}
