import { describe, expect, it } from 'vitest';
import { defineMetrics } from '../../../src/model/metric-def.js';
import { SampleSink, toSampleValue } from '../../../src/exposition/sample-sink.js';
import { familyBody } from '../../../src/exposition/text-format.js';

const M = defineMetrics('test', {
  g: { name: 'rabbitmq_test_value', type: 'gauge', labels: ['k'], help: 'A value.' },
  c: { name: 'rabbitmq_test_things_total', type: 'counter', help: 'Things.' },
});

const H = defineMetrics('test', {
  sizes: { name: 'rabbitmq_test_size_bytes', type: 'histogram', labels: ['protocol'], help: 'Sizes.' },
  bare: { name: 'rabbitmq_test_wait_seconds', type: 'histogram', help: 'Waits.' },
});

const I = defineMetrics('test', {
  info: { name: 'rabbitmq_test_info', type: 'gauge', labels: ['vhost', 'queue', 'type'], help: 'Info.' },
});

function text(sink: SampleSink): string {
  return Buffer.concat(sink.finish().map(familyBody)).toString('utf8');
}

describe('toSampleValue', () => {
  it.each([
    [42, 42],
    [-1.5, -1.5],
    [NaN, NaN],
    [Infinity, Infinity],
    [true, 1],
    [false, 0],
    ['42', 42],
    [' 1.5e3 ', 1500],
    ['-0.25', -0.25],
    ['+7', 7],
    ['.5', 0.5],
    ['5.', 5],
    ['1E-3', 0.001],
  ])('%j → %d', (raw, value) => {
    expect(toSampleValue(raw)).toBe(value);
  });

  it.each([[null], [undefined], [{}], [[]], [[1]], [''], [' '], ['abc'], ['0x10'], ['1,5'], ['NaN'], ['Infinity'], ['1e'], ['--1']])('%j is not a sample value', (raw) => {
    expect(toSampleValue(raw)).toBeUndefined();
  });
});

describe('SampleSink histograms', () => {
  it('writes a bucket line per bound with le, then count and sum; once per series', () => {
    const sink = new SampleSink();
    expect(sink.addHistogram(H.sizes, { protocol: 'amqp091' }, { buckets: [['100', 2], ['+Inf', 3]], count: 3, sum: 250 })).toBe(true);
    expect(sink.addHistogram(H.sizes, { protocol: 'amqp091' }, { buckets: [['+Inf', 9]], count: 9, sum: 9 })).toBe(false);
    expect(sink.addHistogram(H.bare, [], { buckets: [['0.5', 1], ['+Inf', 1]], count: 1, sum: 0.25 })).toBe(true);
    expect(sink.dropped.get('duplicate')).toBe(1);
    expect(text(sink)).toBe(
      [
        'rabbitmq_test_size_bytes_bucket{protocol="amqp091",le="100"} 2',
        'rabbitmq_test_size_bytes_bucket{protocol="amqp091",le="+Inf"} 3',
        'rabbitmq_test_size_bytes_count{protocol="amqp091"} 3',
        'rabbitmq_test_size_bytes_sum{protocol="amqp091"} 250',
        'rabbitmq_test_wait_seconds_bucket{le="0.5"} 1',
        'rabbitmq_test_wait_seconds_bucket{le="+Inf"} 1',
        'rabbitmq_test_wait_seconds_count 1',
        'rabbitmq_test_wait_seconds_sum 0.25',
        '',
      ].join('\n'),
    );
  });

  it('refuses a row that is not a histogram, and serves none under a naming profile', () => {
    expect(() => new SampleSink().addHistogram(M.g, { k: 'a' }, { buckets: [], count: 0, sum: 0 })).toThrow('rabbitmq_test_value is a gauge, not a histogram');
    const profiled = new SampleSink(undefined, { names: { name: 'other', served: () => undefined }, clusterName: 'c', node: 'n' });
    expect(profiled.addHistogram(H.bare, [], { buckets: [['+Inf', 1]], count: 1, sum: 1 })).toBe(false);
    expect(profiled.notInProfile).toBe(1);
  });
});

describe('SampleSink', () => {
  it('accepts numbers, numeric strings and booleans, skips and counts the rest', () => {
    const sink = new SampleSink();
    expect(sink.add(M.g, ['n'], 3)).toBe(true);
    expect(sink.add(M.g, ['s'], '17509552296')).toBe(true);
    expect(sink.add(M.g, ['t'], true)).toBe(true);
    expect(sink.add(M.g, ['f'], false)).toBe(true);
    expect(sink.add(M.g, ['null'], null)).toBe(false);
    expect(sink.add(M.g, ['undef'], undefined)).toBe(false);
    expect(sink.add(M.g, ['obj'], { rate: 1 })).toBe(false);
    expect(sink.add(M.g, ['str'], 'n/a')).toBe(false);
    expect(sink.skipped).toBe(4);
    expect(text(sink)).toBe(
      'rabbitmq_test_value{k="n"} 3\nrabbitmq_test_value{k="s"} 17509552296\nrabbitmq_test_value{k="t"} 1\nrabbitmq_test_value{k="f"} 0\n',
    );
  });

  it('NaN and infinities are samples of a gauge, rendered the Prometheus way', () => {
    const sink = new SampleSink();
    sink.add(M.g, ['nan'], NaN);
    sink.add(M.g, ['inf'], Infinity);
    sink.add(M.g, ['-inf'], -Infinity);
    expect(sink.skipped).toBe(0);
    expect(text(sink)).toBe('rabbitmq_test_value{k="nan"} NaN\nrabbitmq_test_value{k="inf"} +Inf\nrabbitmq_test_value{k="-inf"} -Inf\n');
  });

  it('on a counter, NaN, an infinity (1e999 parses as one) and a negative value are skipped: a counter counts from 0 up', () => {
    const sink = new SampleSink();
    for (const raw of [NaN, Infinity, -Infinity, '1e999', -1]) expect(sink.add(M.c, [], raw), String(raw)).toBe(false);
    expect(sink.skipped).toBe(5);
    expect(sink.add(M.c, [], '12')).toBe(true);
    expect(text(sink)).toBe('rabbitmq_test_things_total 12\n');
  });

  it('a label count mismatch throws, naming the family', () => {
    const sink = new SampleSink();
    expect(() => sink.add(M.g, [], 1)).toThrow('rabbitmq_test_value takes 1 label values, got 0');
    expect(() => sink.add(M.g, ['a', 'b'], 1)).toThrow('got 2');
    expect(() => sink.add(M.c, ['x'], 1)).toThrow('rabbitmq_test_things_total takes 0 label values, got 1');
    expect(sink.finish()).toEqual([]);
  });

  it('takes label values by name, rendered in the family\'s label order', () => {
    const sink = new SampleSink();
    expect(sink.add(I.info, { queue: 'q"1', type: 'quorum', vhost: '/' }, 1)).toBe(true);
    expect(text(sink)).toBe('rabbitmq_test_info{vhost="/",queue="q\\"1",type="quorum"} 1\n');
  });

  it('a missing or unknown label name throws, naming the family and the labels', () => {
    const sink = new SampleSink();
    expect(() => sink.add(I.info, { vhost: '/', queue: 'q' }, 1)).toThrow('rabbitmq_test_info takes the labels vhost, queue, type: type missing');
    expect(() => sink.add(I.info, { vhost: '/', queue: 'q', type: 't', node: 'n' }, 1)).toThrow('node unknown');
    expect(() => sink.add(M.g, { k: undefined as unknown as string }, 1)).toThrow('k missing');
    expect(sink.finish()).toEqual([]);
  });

  it('finish hands over one family per definition, in first-use order, and empties the sink', () => {
    const sink = new SampleSink();
    sink.add(M.g, ['a'], 1);
    sink.add(M.c, [], 2);
    sink.add(M.g, ['b'], 3);
    const families = sink.finish();
    expect(families.map((f) => [f.header.name, f.samples])).toEqual([
      ['rabbitmq_test_value', 2],
      ['rabbitmq_test_things_total', 1],
    ]);
    expect(families[0]!.header).toBe(M.g);
    expect(familyBody(families[0]!).toString()).toBe('rabbitmq_test_value{k="a"} 1\nrabbitmq_test_value{k="b"} 3\n');
    expect(sink.finish()).toEqual([]);
  });

  it('a series written twice in one poll is served once (the first) and counted as dropped', () => {
    const sink = new SampleSink();
    expect(sink.add(M.g, ['a'], 1)).toBe(true);
    expect(sink.add(M.g, ['a'], 2)).toBe(false);
    expect(sink.addRendered(M.g, '{k="a"}', 3)).toBe(false);
    expect(sink.add(M.c, [], 4)).toBe(true);
    expect(sink.add(M.c, [], 5)).toBe(false);
    // The same labels in another family are another series.
    expect(sink.add(M.g, ['b'], 6)).toBe(true);
    expect(Object.fromEntries(sink.dropped)).toEqual({ no_name: 0, duplicate: 3 });
    expect(text(sink)).toBe('rabbitmq_test_value{k="a"} 1\nrabbitmq_test_value{k="b"} 6\nrabbitmq_test_things_total 4\n');
    // A new poll (after finish) starts afresh.
    expect(sink.add(M.g, ['a'], 7)).toBe(true);
  });

  it('a value skipped as not a number does not take the series: a later number is served', () => {
    const sink = new SampleSink();
    expect(sink.add(M.g, ['a'], null)).toBe(false);
    expect(sink.add(M.g, ['a'], 2)).toBe(true);
    expect(sink.skipped).toBe(1);
    expect(sink.dropped.get('duplicate')).toBe(0);
  });

  it('a family whose values were all skipped is not handed over', () => {
    const sink = new SampleSink();
    sink.add(M.g, ['a'], null);
    sink.add(M.c, [], 1);
    expect(sink.finish().map((f) => [f.header.name, f.samples])).toEqual([['rabbitmq_test_things_total', 1]]);
  });

  it('addRendered takes labels already rendered', () => {
    const sink = new SampleSink();
    expect(sink.addRendered(M.g, '{k="pre"}', '9')).toBe(true);
    expect(sink.addRendered(M.g, '{k="pre"}', null)).toBe(false);
    expect(text(sink)).toBe('rabbitmq_test_value{k="pre"} 9\n');
  });
});

describe('SampleSink.carry: the series of vhosts a poll could not read, from the last served families', () => {
  const V = defineMetrics('test', {
    messages: { name: 'rabbitmq_test_messages', type: 'gauge', labels: ['vhost', 'queue'], help: 'Messages.' },
    all: { name: 'rabbitmq_test_all_messages', type: 'gauge', help: 'No vhost label.' },
    failed: { name: 'rabbitmq_test_failed', type: 'gauge', labels: ['vhost'], help: 'Reported fresh.' },
  });
  // Names with a quote, a backslash, a space, a brace and a newline: the lines are cut by the last space only.
  const odd = 'a "b\\c} d\ne';

  function lastPoll() {
    const sink = new SampleSink();
    sink.add(V.messages, { vhost: odd, queue: 'q 1' }, 5);
    sink.add(V.messages, { vhost: odd, queue: 'q}2' }, 6);
    sink.add(V.messages, { vhost: 'other', queue: 'q1' }, 7);
    sink.add(V.all, [], 18);
    sink.add(V.failed, [odd], 1);
    return sink.finish();
  }

  it('carries exactly the lines of the kept vhosts, of families with a vhost label, not those skipped', () => {
    const sink = new SampleSink();
    sink.add(V.messages, { vhost: 'other', queue: 'q1' }, 9);
    const carried = sink.carry(lastPoll(), (vhost) => vhost === odd, new Set([V.failed]));
    expect(carried).toBe(2);
    const served = text(sink);
    expect(served).toBe(
      'rabbitmq_test_messages{vhost="other",queue="q1"} 9\n' +
        'rabbitmq_test_messages{vhost="a \\"b\\\\c} d\\ne",queue="q 1"} 5\n' +
        'rabbitmq_test_messages{vhost="a \\"b\\\\c} d\\ne",queue="q}2"} 6\n',
    );
  });

  it('a series this poll wrote is not carried again, and nothing is counted as dropped', () => {
    const sink = new SampleSink();
    sink.add(V.messages, { vhost: odd, queue: 'q 1' }, 50);
    expect(sink.carry(lastPoll(), (vhost) => vhost === odd, new Set([V.failed]))).toBe(1);
    expect(text(sink)).toBe('rabbitmq_test_messages{vhost="a \\"b\\\\c} d\\ne",queue="q 1"} 50\nrabbitmq_test_messages{vhost="a \\"b\\\\c} d\\ne",queue="q}2"} 6\n');
    expect(sink.dropped.get('duplicate')).toBe(0);
  });
});
