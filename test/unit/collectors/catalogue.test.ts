import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../src/collectors/catalogue.js';
import { exporterMetrics } from '../../../src/collectors/exporter/metrics.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import type { MetricDef } from '../../../src/model/metric-def.js';

const defs: MetricDef[] = catalogue(COLLECTORS);

describe('catalogue', () => {
  it('lists the exporter, overview and nodes families (and any later collector)', () => {
    const names = new Set(defs.map((d) => d.name));
    for (const name of ['rabbitmq_up', 'rabbitmq_exporter_collector_success', 'rabbitmq_queues', 'rabbitmq_build_info', 'rabbitmq_node_running', 'rabbitmq_node_memory_bytes']) {
      expect(names.has(name), name).toBe(true);
    }
    expect(defs.length).toBeGreaterThanOrEqual(Object.keys(exporterMetrics).length + 100);
  });

  it("a family off by default names the option of its collector that turns it on, an option the collector has, named in its help", () => {
    const optionsOf = (owner: string) => Object.keys((COLLECTORS.find((c) => c.name === owner)?.optionsSchema as { shape?: object } | undefined)?.shape ?? {});
    const offByDefault = defs.filter((d) => /\bOnly with\b|collectors\.queues\.families/.test(d.help));
    expect(offByDefault.length).toBeGreaterThan(60);
    for (const def of offByDefault) expect(def.option, def.name).toBeDefined();
    // A _per_second gauge shares its family's option; its help is its family's.
    const rates = new Set(defs.flatMap((d) => (d.rate ? [d.rate] : [])));
    for (const def of defs.filter((d) => d.option !== undefined)) {
      expect(optionsOf(def.owner), def.name).toContain(def.option);
      if (rates.has(def)) continue;
      // Its help says so, by the option's name.
      expect(def.help, def.name).toContain(def.option);
    }
  });

  it('has unique names', () => {
    const names = defs.map((d) => d.name);
    const duplicates = names.filter((n, i) => names.indexOf(n) !== i);
    expect(duplicates).toEqual([]);
  });

  it('every collector family is in the catalogue, owned by its collector', () => {
    const byName = new Map(defs.map((d) => [d.name, d]));
    for (const collector of COLLECTORS) {
      for (const def of collector.metrics) {
        expect(byName.get(def.name), def.name).toBe(def);
        expect(def.owner, def.name).toBe(collector.name);
        expect(def.polledBy, def.name).toBe(collector.name);
      }
    }
    for (const def of Object.values(exporterMetrics)) {
      expect(def.owner).toBe('exporter');
      expect(def.polledBy).toBeUndefined();
    }
  });

  it('the only families named as another exporter names them are the Erlang VM families the plugin collector relays, each with its node', () => {
    const relayed = defs.filter((d) => d.relayed);
    expect(relayed.length).toBeGreaterThan(80);
    for (const def of relayed) {
      expect(def.owner, def.name).toBe('plugin');
      expect(def.name).toMatch(/^erlang_vm_[a-z0-9_]+$/);
      expect(def.labels.at(-1), def.name).toBe('node');
      expect(def.option, def.name).toBe('erlang_vm');
      if (def.type === 'counter') expect(def.name.endsWith('_total'), def.name).toBe(true);
    }
  });

  it.each(defs.filter((d) => !d.relayed).map((d) => [d.name, d] as const))('%s follows the naming conventions', (name, def) => {
    expect(name).toMatch(/^rabbitmq_[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
    if (def.type === 'counter') expect(name.endsWith('_total')).toBe(true);
    else expect(name.endsWith('_total')).toBe(false);
    // Suffixes Prometheus reserves for histograms and summaries, and non-base units.
    expect(name).not.toMatch(/_(count|sum|bucket)$/);
    expect(name).not.toMatch(/_(ms|milliseconds|microseconds|kb|mb|gb|kilobytes|megabytes|percent)(_|$)/);
    if (/_info$/.test(name)) expect(def.type).toBe('gauge');
    if (/_bytes(_total)?$/.test(name)) expect(def.unit).toBe('bytes');
    if (/_seconds(_total)?$/.test(name)) expect(def.unit).toBe('seconds');
    for (const label of def.labels) {
      expect(label).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(['le', 'quantile', 'job', 'instance']).not.toContain(label);
    }
    expect(new Set(def.labels).size).toBe(def.labels.length);
    expect(def.help.trim().length).toBeGreaterThan(5);
    expect(def.help).not.toContain('\n');
  });

  it('rate gauges are named after their field: counters <base>_per_second, gauges <name>_change_per_second', () => {
    for (const def of defs) {
      if (!def.rate) continue;
      expect(def.rate.type).toBe('gauge');
      expect(def.rate.labels).toEqual(def.labels);
      expect(def.rate.name).toBe(def.type === 'counter' ? def.name.replace(/_total$/, '_per_second') : `${def.name}_change_per_second`);
      expect(defs).toContain(def.rate);
    }
  });

  // The rate gauge of a byte counter (rabbitmq_io_read_bytes_per_second,
  // rabbitmq_erlang_gc_reclaimed_bytes_per_second, ...) has unit bytes_per_second, not per_second.
  it('a family named *_bytes_per_second has unit bytes_per_second', () => {
    const wrong = defs.filter((d) => d.name.endsWith('_bytes_per_second') && d.unit !== 'bytes_per_second').map((d) => d.name);
    expect(wrong).toEqual([]);
  });
});
