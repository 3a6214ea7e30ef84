import { describe, expect, it } from 'vitest';
import { emitRecord, fieldTable, fieldTableOf } from '../../../src/collectors/kit/field-table.js';
import { assertConventions, defineMetrics, metricsOf } from '../../../src/model/metric-def.js';
import { SampleSink } from '../../../src/exposition/sample-sink.js';
import { familyBody } from '../../../src/exposition/text-format.js';

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
    [{ name: 'rabbitmq_x_sizes_count', type: 'histogram' as const, help: 'h' }, 'histogram rabbitmq_x_sizes_count must not end in _total, _bucket, _count or _sum'],
    [{ name: 'rabbitmq_x_size_bytes', type: 'histogram' as const, help: 'h', labels: ['le'] }, 'histogram rabbitmq_x_size_bytes must not declare le'],
  ])('refuses %j', (spec, message) => {
    expect(() => defineMetrics('test', { k: spec })).toThrow(message);
  });

  it('assertConventions accepts a valid definition', () => {
    expect(() => assertConventions({ name: 'rabbitmq_ok_total', type: 'counter', unit: '', help: 'ok', labels: ['vhost'], owner: 'x' })).not.toThrow();
    expect(() => assertConventions({ name: 'rabbitmq_ok_total', type: 'gauge', unit: '', help: 'ok', labels: [], owner: 'x' })).toThrow('must not end in _total');
  });
});

describe('one row per metric', () => {
  const M = defineMetrics('test', {
    info: { name: 'rabbitmq_x_info', type: 'gauge', labels: ['vhost', 'queue', 'type'], help: 'Info.' },
    messages: { source: { field: 'messages' }, name: 'rabbitmq_x_messages', type: 'gauge', labels: ['vhost'], rate: true, help: 'Messages.' },
    uptime: { source: { field: 'uptime', scale: 0.001 }, names: { kbudde: { name: 'rabbitmq_uptime' } }, name: 'rabbitmq_x_uptime_seconds', type: 'gauge', help: 'Uptime.' },
  });

  it('keeps the source field, scaling and other profiles\' names on the row', () => {
    expect(M.messages.source).toEqual({ field: 'messages' });
    expect(M.uptime.source).toEqual({ field: 'uptime', scale: 0.001 });
    expect(M.uptime.names?.kbudde?.name).toBe('rabbitmq_uptime');
    expect(M.info.source).toBeUndefined();
  });

  it('metricsOf lists the rows in order, each rate gauge right after its family', () => {
    expect(metricsOf(M).map((d) => d.name)).toEqual(['rabbitmq_x_info', 'rabbitmq_x_messages', 'rabbitmq_x_messages_change_per_second', 'rabbitmq_x_uptime_seconds']);
    expect(metricsOf([M.uptime], [M.info]).map((d) => d.name)).toEqual(['rabbitmq_x_uptime_seconds', 'rabbitmq_x_info']);
  });

  it('a field table is built from rows with a source, and refuses one without', () => {
    const table = fieldTableOf(M);
    expect(table.rows.map((r) => [r.field, r.scale])).toEqual([['messages', 1], ['uptime', 0.001]]);
    expect(table.metrics).toEqual(metricsOf([M.messages, M.uptime]));
    expect(() => fieldTable([M.info])).toThrow('rabbitmq_x_info has no source field');
  });

  it('emits a table\'s rows from a record, scaled, with the rate gauge', () => {
    const sink = new SampleSink();
    emitRecord(sink, fieldTable([M.messages, M.uptime]), { messages: 3, messages_details: { rate: 0.5 }, uptime: 22990 }, '{vhost="/"}', { rates: true });
    const text = Buffer.concat(sink.finish().map(familyBody)).toString('utf8');
    expect(text).toBe('rabbitmq_x_messages{vhost="/"} 3\nrabbitmq_x_messages_change_per_second{vhost="/"} 0.5\nrabbitmq_x_uptime_seconds{vhost="/"} 22.99\n');
  });
});
