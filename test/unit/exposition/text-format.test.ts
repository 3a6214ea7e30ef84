import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { defineMetrics } from '../../../src/model/metric-def.js';
import {
  chunkText,
  concatFamilies,
  familyBody,
  escapeLabelValue,
  helpText,
  formatValue,
  openMetricsFamilyName,
  openMetricsHeader,
  renderLabels,
  textHeader,
  OPENMETRICS_CONTENT_TYPE,
  TEXT_CONTENT_TYPE,
  type RenderedFamily,
} from '../../../src/exposition/text-format.js';
import { SampleSink } from '../../../src/exposition/sample-sink.js';
import { Exposition } from '../../../src/exposition/exposition.js';

const NASTY = 'a"b\\c\nd é 日本 🐇';
const NASTY_ESCAPED = 'a\\"b\\\\c\\nd é 日本 🐇';

// Owner 'exporter': no "polled in the background" sentence in HELP, so headers are exact.
const M = defineMetrics('exporter', {
  queueMessages: { name: 'rabbitmq_test_queue_messages', type: 'gauge', labels: ['vhost', 'queue'], help: 'Messages in a "queue" \\ with\nnewline.' },
  published: { name: 'rabbitmq_test_published_total', type: 'counter', labels: ['vhost'], help: 'Messages published.' },
  plain: { name: 'rabbitmq_test_plain', type: 'gauge', help: 'No labels.' },
  empty: { name: 'rabbitmq_test_empty', type: 'gauge', help: 'Never has samples.' },
});

function hasPromtool(): boolean {
  return spawnSync('which', ['promtool'], { encoding: 'utf8' }).status === 0;
}

describe('label values', () => {
  it('escapes backslash, double quote and newline, and nothing else', () => {
    expect(escapeLabelValue(NASTY)).toBe(NASTY_ESCAPED);
    expect(escapeLabelValue('plain-value_1.2:3/4')).toBe('plain-value_1.2:3/4');
    expect(escapeLabelValue('tab\there\rcr')).toBe('tab\there\rcr');
    expect(escapeLabelValue('\\n')).toBe('\\\\n');
    expect(escapeLabelValue('')).toBe('');
  });

  it('renderLabels', () => {
    expect(renderLabels([], [])).toBe('');
    expect(renderLabels(['vhost', 'queue'], ['/', NASTY])).toBe(`{vhost="/",queue="${NASTY_ESCAPED}"}`);
  });

  it('non-ASCII stays raw UTF-8 in the rendered bytes', () => {
    const sink = new SampleSink();
    sink.add(M.queueMessages, ['日本', 'é🐇'], 1);
    const [family] = sink.finish();
    expect(familyBody(family!).equals(Buffer.from('rabbitmq_test_queue_messages{vhost="日本",queue="é🐇"} 1\n', 'utf8'))).toBe(true);
    expect(familyBody(family!).includes(Buffer.from([0xf0, 0x9f, 0x90, 0x87]))).toBe(true); // 🐇 in UTF-8
  });
});

describe('values', () => {
  it.each([
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
    [0, '0'],
    [-0, '0'],
    [42, '42'],
    [-33.6, '-33.6'],
    [0.000021, '0.000021'],
    [1e21, '1e+21'],
    [17509552296, '17509552296'],
  ])('%d → %s', (value, text) => {
    expect(formatValue(value)).toBe(text);
  });
});

describe('headers', () => {
  it('text format: HELP escapes backslash and newline but not quotes', () => {
    expect(textHeader(M.queueMessages).toString()).toBe(
      '# HELP rabbitmq_test_queue_messages Messages in a "queue" \\\\ with\\nnewline.\n# TYPE rabbitmq_test_queue_messages gauge\n',
    );
    expect(textHeader(M.published).toString()).toBe('# HELP rabbitmq_test_published_total Messages published.\n# TYPE rabbitmq_test_published_total counter\n');
  });

  it('OpenMetrics: counter family named without _total, TYPE before HELP, quotes escaped in HELP', () => {
    expect(openMetricsFamilyName(M.published)).toBe('rabbitmq_test_published');
    expect(openMetricsFamilyName(M.plain)).toBe('rabbitmq_test_plain');
    expect(openMetricsHeader(M.published).toString()).toBe('# TYPE rabbitmq_test_published counter\n# HELP rabbitmq_test_published Messages published.\n');
    expect(openMetricsHeader(M.queueMessages).toString()).toBe(
      '# TYPE rabbitmq_test_queue_messages gauge\n# HELP rabbitmq_test_queue_messages Messages in a \\"queue\\" \\\\ with\\nnewline.\n',
    );
  });

  it('OpenMetrics calls untyped "unknown"', () => {
    const header = { name: 'x_thing', type: 'untyped' as const, help: 'h' };
    expect(openMetricsHeader(header).toString()).toBe('# TYPE x_thing unknown\n# HELP x_thing h\n');
    expect(textHeader(header).toString()).toBe('# HELP x_thing h\n# TYPE x_thing untyped\n');
  });

  it('HELP of a family polled by a collector says so and names the age series', () => {
    const polled = defineMetrics('nodes', { x: { name: 'rabbitmq_test_polled', type: 'gauge', help: 'A "polled" value.' } }).x;
    expect(polled.polledBy).toBe('nodes');
    const sentence = 'Polled in the background by the nodes collector; its age is rabbitmq_exporter_collector_last_success_timestamp_seconds.';
    expect(helpText(polled)).toBe(`A "polled" value. ${sentence}`);
    expect(textHeader(polled).toString()).toBe(`# HELP rabbitmq_test_polled A "polled" value. ${sentence}\n# TYPE rabbitmq_test_polled gauge\n`);
    expect(openMetricsHeader(polled).toString()).toContain(`# HELP rabbitmq_test_polled A \\"polled\\" value. ${sentence}\n`);
    expect(helpText(M.plain)).toBe('No labels.');
  });

  it('headers are cached per family', () => {
    expect(textHeader(M.plain)).toBe(textHeader(M.plain));
    expect(openMetricsHeader(M.plain)).toBe(openMetricsHeader(M.plain));
  });

  it('content types', () => {
    expect(TEXT_CONTENT_TYPE).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(OPENMETRICS_CONTENT_TYPE).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
  });
});

function families(): RenderedFamily[] {
  const sink = new SampleSink();
  sink.add(M.queueMessages, ['/', 'q1'], 5);
  sink.add(M.queueMessages, ['vh1', NASTY], 0);
  sink.add(M.published, ['/'], 317500);
  sink.add(M.plain, [], NaN);
  // A family without samples (a sink hands over none; the layout must still leave it out).
  return [{ header: M.empty, chunks: [], samples: 0 }, ...sink.finish()];
}

describe('layout', () => {
  it('text: families in order, empty families left out', () => {
    const text = Buffer.concat(concatFamilies(families(), false).map(chunkText)).toString('utf8');
    expect(text).toBe(
      [
        '# HELP rabbitmq_test_queue_messages Messages in a "queue" \\\\ with\\nnewline.',
        '# TYPE rabbitmq_test_queue_messages gauge',
        'rabbitmq_test_queue_messages{vhost="/",queue="q1"} 5',
        `rabbitmq_test_queue_messages{vhost="vh1",queue="${NASTY_ESCAPED}"} 0`,
        '# HELP rabbitmq_test_published_total Messages published.',
        '# TYPE rabbitmq_test_published_total counter',
        'rabbitmq_test_published_total{vhost="/"} 317500',
        '# HELP rabbitmq_test_plain No labels.',
        '# TYPE rabbitmq_test_plain gauge',
        'rabbitmq_test_plain NaN',
        '',
      ].join('\n'),
    );
    expect(text).not.toContain('rabbitmq_test_empty');
  });

  it('OpenMetrics: counter samples keep _total, # EOF is the last line', () => {
    const om = Exposition.of(families()).body('openmetrics').toString('utf8');
    const lines = om.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.at(-2)).toBe('# EOF');
    expect(om.match(/# EOF/g)).toHaveLength(1);
    expect(om).toContain('# TYPE rabbitmq_test_published counter\n# HELP rabbitmq_test_published Messages published.\nrabbitmq_test_published_total{vhost="/"} 317500\n');
    expect(om).not.toContain('rabbitmq_test_empty');
    expect(om).not.toContain('# TYPE rabbitmq_test_published_total');
  });
});

describe('promtool', () => {
  it.skipIf(!hasPromtool())('promtool check metrics accepts an exposition with nasty label values', () => {
    const sink = new SampleSink();
    for (const [i, value] of [NASTY, '\\', '"', '\n', '', 'x\\"y', '🐇🐇', 'tab\tand space'].entries()) sink.add(M.queueMessages, ['vh', value], i);
    sink.add(M.published, [NASTY], Infinity);
    sink.add(M.plain, [], -Infinity);
    const body = Exposition.of(sink.finish()).body('text');
    const result = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  });

  it.skipIf(!hasPromtool())('promtool refuses a broken line (so the check above can fail)', () => {
    const result = spawnSync('promtool', ['check', 'metrics'], { input: 'rabbitmq_x{a="unterminated} 1\n', encoding: 'utf8' });
    expect(result.status).not.toBe(0);
  });
});
