import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { defineMetrics } from '../../../src/model/metric-def.js';
import { familyBody, renderLabels } from '../../../src/exposition/text-format.js';
import { boundedLabelValue, MAX_LABEL_VALUE_BYTES } from '../../../src/model/label-value.js';
import { SampleSink } from '../../../src/exposition/sample-sink.js';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex').slice(0, 12);

const M = defineMetrics('exporter', {
  q: { name: 'rabbitmq_test_queue_messages', type: 'gauge', labels: ['vhost', 'queue'], help: 'Messages.' },
});

describe('boundedLabelValue', () => {
  it('serves values of at most 256 bytes as they are: every AMQP name (at most 255 bytes) included', () => {
    for (const value of ['', 'orders', 'x'.repeat(255), 'x'.repeat(256), 'é'.repeat(128), '🐇'.repeat(64), 'a"b\\c\nd']) {
      expect(boundedLabelValue(value)).toBe(value);
    }
  });

  it('cuts a longer value to at most 243 bytes on a character boundary, then ~ and 12 hex digits of its SHA-256', () => {
    const long = 'q'.repeat(1024 * 1024);
    const served = boundedLabelValue(long);
    expect(served).toBe(`${'q'.repeat(243)}~${sha(Buffer.from(long))}`);
    expect(bytes(served)).toBe(MAX_LABEL_VALUE_BYTES);
    // 257 bytes: just over.
    expect(boundedLabelValue('x'.repeat(257))).toBe(`${'x'.repeat(243)}~${sha(Buffer.from('x'.repeat(257)))}`);
    // Multi-byte characters are never cut in half: 'é' is 2 bytes, '🐇' 4.
    const accents = boundedLabelValue('é'.repeat(200));
    expect(accents.startsWith(`${'é'.repeat(121)}~`)).toBe(true);
    expect(bytes(accents)).toBe(242 + 13);
    const rabbits = boundedLabelValue('🐇'.repeat(100));
    expect(rabbits.startsWith(`${'🐇'.repeat(60)}~`)).toBe(true);
    // No lone surrogate: UTF-8 encoding would replace it, so the round trip would differ.
    expect(Buffer.from(rabbits, 'utf8').toString('utf8')).toBe(rabbits);
  });

  it('keeps distinct long names distinct, and the same name the same on every poll', () => {
    const a = boundedLabelValue(`${'p'.repeat(500)}-a`);
    const b = boundedLabelValue(`${'p'.repeat(500)}-b`);
    expect(a).not.toBe(b);
    expect(a.slice(0, 243)).toBe(b.slice(0, 243));
    expect(boundedLabelValue(`${'p'.repeat(500)}-a`)).toBe(a);
  });

  it('a lone surrogate becomes U+FFFD plus the hash, so two such names stay distinct and the bytes are valid UTF-8', () => {
    const high = boundedLabelValue('q\uD800');
    const low = boundedLabelValue('q\uDC00');
    expect(high).toBe(`q\uFFFD~${sha(Buffer.from([0x71, 0xed, 0xa0, 0x80]))}`);
    expect(low).toBe(`q\uFFFD~${sha(Buffer.from([0x71, 0xed, 0xb0, 0x80]))}`);
    expect(high).not.toBe(low);
    // A proper pair is left alone.
    expect(boundedLabelValue('q\uD83D\uDC07')).toBe('q🐇');
    for (const value of [high, low]) expect(Buffer.from(Buffer.from(value, 'utf8').toString('utf8')).equals(Buffer.from(value, 'utf8'))).toBe(true);
  });

  it('a control character (NUL, CR, ESC, DEL...) becomes U+FFFD plus the hash; tab and newline stay (the format escapes the newline)', () => {
    for (const control of ['\u0000', '\r', '\u001b', '\u007f', '\u0008', '\u000b']) {
      const name = `q${control}[31m`;
      expect(boundedLabelValue(name), JSON.stringify(name)).toBe(`q\uFFFD[31m~${sha(Buffer.from(name, 'utf8'))}`);
    }
    expect(boundedLabelValue('a\tb\nc')).toBe('a\tb\nc');
    expect(boundedLabelValue('q\r')).not.toBe(boundedLabelValue('q\u001b'));
    // Rendered, no raw control reaches the exposition.
    const rendered = renderLabels(['queue'], ['x\u001b[2J\r\u0000']);
    expect([...rendered].filter((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)).toEqual([]);
  });
});

describe('the rendered exposition', () => {
  it('three 1 MB queue names make a few hundred bytes, not megabytes', () => {
    const sink = new SampleSink();
    for (const c of ['a', 'b', 'c']) sink.add(M.q, ['/', c.repeat(1024 * 1024)], 1);
    const body = Buffer.concat(sink.finish().map(familyBody));
    expect(body.length).toBeLessThan(1000);
    expect(body.toString('utf8').split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('names that differ only in a lone surrogate are two series, and promtool accepts them', () => {
    const sink = new SampleSink();
    sink.add(M.q, ['/', 'q\uD800'], 1);
    sink.add(M.q, ['/', 'q\uDC00'], 2);
    expect(sink.dropped.get('duplicate')).toBe(0);
    const families = sink.finish();
    expect(families[0]!.samples).toBe(2);
    const text = `# HELP rabbitmq_test_queue_messages Messages.\n# TYPE rabbitmq_test_queue_messages gauge\n${familyBody(families[0]!).toString('utf8')}`;
    const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    if (promtool.error === undefined) {
      expect(`${promtool.stdout}${promtool.stderr}`).toBe('');
      expect(promtool.status).toBe(0);
    }
  });

  it('renderLabels bounds before escaping', () => {
    const value = '"'.repeat(300);
    const rendered = renderLabels(['queue'], [value]);
    expect(rendered).toBe(`{queue="${'\\"'.repeat(243)}~${sha(Buffer.from(value))}"}`);
  });
});
