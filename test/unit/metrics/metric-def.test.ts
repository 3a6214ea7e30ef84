import { describe, expect, it } from 'vitest';
import { assertConventions, defineMetrics } from '../../../src/metrics/metric-def.js';

describe('defineMetrics', () => {
  it('fills unit, labels, owner, polledBy and the rate gauge', () => {
    const M = defineMetrics('nodes', {
      mem: { name: 'rabbitmq_x_memory_bytes', type: 'gauge', labels: ['node'], rate: true, help: 'Memory.' },
      gc: { name: 'rabbitmq_x_gc_runs_total', type: 'counter', labels: ['node'], rate: true, help: 'GC runs.' },
      up: { name: 'rabbitmq_x_uptime_seconds', type: 'gauge', help: 'Uptime.' },
      ratio: { name: 'rabbitmq_x_hit_ratio', type: 'gauge', help: 'Ratio.', unit: 'ratio' },
    });
    expect(M.mem).toMatchObject({ unit: 'bytes', labels: ['node'], owner: 'nodes', polledBy: 'nodes' });
    expect(M.mem.rate).toMatchObject({ name: 'rabbitmq_x_memory_bytes_change_per_second', type: 'gauge', unit: 'per_second', labels: ['node'], owner: 'nodes' });
    expect(M.gc.unit).toBe('');
    expect(M.gc.rate).toMatchObject({ name: 'rabbitmq_x_gc_runs_per_second', type: 'gauge', unit: 'per_second' });
    expect(M.gc.rate?.help).toContain('rabbitmq_x_gc_runs_total');
    expect(M.up).toMatchObject({ unit: 'seconds', labels: [] });
    expect(M.up.rate).toBeUndefined();
    expect(M.ratio.unit).toBe('ratio');
  });

  it('the exporter own series are not marked as polled', () => {
    const M = defineMetrics('exporter', { up: { name: 'rabbitmq_x_up', type: 'gauge', help: 'Up.' } });
    expect(M.up.polledBy).toBeUndefined();
  });

  it.each([
    [{ name: 'rabbitmq_x_things', type: 'counter' as const, help: 'h' }, 'counter rabbitmq_x_things must end in _total'],
    [{ name: 'rabbitmq_x_things_total', type: 'gauge' as const, help: 'h' }, 'gauge rabbitmq_x_things_total must not end in _total'],
    [{ name: 'rabbitmq-x', type: 'gauge' as const, help: 'h' }, 'metric name rabbitmq-x is not a valid Prometheus name'],
    [{ name: '1rabbitmq', type: 'gauge' as const, help: 'h' }, 'is not a valid Prometheus name'],
    [{ name: 'rabbitmq_x', type: 'gauge' as const, help: 'h', labels: ['node', 'node'] }, 'metric rabbitmq_x repeats a label name'],
    [{ name: 'rabbitmq_x', type: 'gauge' as const, help: 'h', labels: ['__name'] }, 'metric rabbitmq_x has an invalid label name __name'],
    [{ name: 'rabbitmq_x', type: 'gauge' as const, help: 'h', labels: ['a-b'] }, 'has an invalid label name a-b'],
    [{ name: 'rabbitmq_x', type: 'gauge' as const, help: '  ' }, 'metric rabbitmq_x has no help'],
  ])('refuses %j', (spec, message) => {
    expect(() => defineMetrics('test', { k: spec })).toThrow(message);
  });

  it('assertConventions accepts a valid definition', () => {
    expect(() => assertConventions({ name: 'rabbitmq_ok_total', type: 'counter', unit: '', help: 'ok', labels: ['vhost'], owner: 'x' })).not.toThrow();
    expect(() => assertConventions({ name: 'rabbitmq_ok_total', type: 'gauge', unit: '', help: 'ok', labels: [], owner: 'x' })).toThrow('must not end in _total');
  });
});
