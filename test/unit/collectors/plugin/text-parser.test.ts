import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePluginText, PluginTextError } from '../../../../src/collectors/plugin/text-parser.js';
import { REPO_ROOT } from '../../../support/fixtures.js';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures');
const recorded = fs.readdirSync(FIXTURES).filter((d) => d.startsWith('plugin-')).flatMap((dir) =>
  fs.readdirSync(path.join(FIXTURES, dir)).filter((f) => f.endsWith('.prom')).map((file) => path.join(dir, file)),
);

async function refusal(text: string): Promise<PluginTextError> {
  try {
    await parsePluginText(text);
  } catch (error) {
    if (error instanceof PluginTextError) return error;
    throw error;
  }
  throw new Error(`parsed: ${JSON.stringify(text)}`);
}

describe('the strict text-format parser of rabbitmq_prometheus answers', () => {
  it('reads every answer recorded from the real 3.10, 4.0 and 4.3 brokers', async () => {
    expect(recorded.length).toBeGreaterThan(40);
    for (const file of recorded) {
      const text = fs.readFileSync(path.join(FIXTURES, file), 'utf8');
      if (text.startsWith('# HTTP')) continue;
      const parsed = await parsePluginText(text);
      // Every sample line of the file is kept, under its name.
      const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
      expect([...parsed.samples.values()].reduce((n, s) => n + s.length, 0), file).toBe(lines);
    }
  });

  it('keeps labels, escapes, special values, timestamps and types', async () => {
    const parsed = await parsePluginText([
      '# HELP a_total Some help, with "quotes" \\\\ and more',
      '# TYPE a_total counter',
      'a_total{vhost="/",queue="q \\"1\\"\\\\\\n",} 12 1700000000000',
      'a_total 3.5e2',
      '# TYPE b gauge',
      'b{x="1"} +Inf',
      'b{x="2"} -Inf',
      'b{x="3"} NaN',
      '# a comment',
      '',
    ].join('\n'));
    expect(parsed.types.get('a_total')).toBe('counter');
    expect(parsed.types.get('b')).toBe('gauge');
    expect(parsed.samples.get('a_total')).toEqual([{ labels: { vhost: '/', queue: 'q "1"\\\n' }, value: 12 }, { labels: {}, value: 350 }]);
    expect(parsed.samples.get('b')?.map((s) => s.value)).toEqual([Infinity, -Infinity, Number.NaN]);
  });

  it.each([
    ['a{q="x} 1\n', 'line 1: a: the value of label q is not closed'],
    ['a{q="x"} one\n', 'line 1: a: "one" is not a number'],
    ['a{q="x"} 1\na{q="x" 2\n', 'line 2: a: expected , or } after label q'],
    ['# TYPE a counter\n# TYPE a gauge\n', 'line 2: a second TYPE line for a'],
    ['# TYPE a countr\n', 'line 1: TYPE of a is "countr", not one of counter, gauge, histogram, summary, untyped'],
    ['a 1\nb 2', 'line 2: the answer ends inside a line (cut short?)'],
    ['a{q="1",q="2"} 1\n', 'line 1: a: label q appears twice'],
    ['a{q="\\t"} 1\n', 'line 1: a: label q has an unknown escape \\t'],
    ['a{1q="x"} 1\n', 'line 1: a: a label name is expected at column 3'],
    ['{q="x"} 1\n', 'line 1: a sample line must start with a metric name, not "{q=\\"x\\"} 1"'],
    ['a 1 2 3\n', 'line 1: a: expected a value and an optional timestamp, found "1 2 3"'],
    ['a 1 soon\n', 'line 1: a: timestamp "soon" is not an integer'],
    ['a\n', 'line 1: a: no space before the value'],
    ['<html>\n', 'line 1: a sample line must start with a metric name, not "<html>"'],
  ])('refuses %j naming the line and what was wrong', async (text, message) => {
    expect((await refusal(text)).message).toBe(message);
  });

  it('reads an 8 MB label value whole, and lets the event loop run while it reads 50,000 lines', async () => {
    const huge = `${'x\\"'.repeat(1_000_000)}${'y'.repeat(5_000_000)}`;
    const one = await parsePluginText(`a{q="${huge}"} 1\n`);
    expect(one.samples.get('a')?.[0]?.labels.q).toBe(`${'x"'.repeat(1_000_000)}${'y'.repeat(5_000_000)}`);
    const lines = Array.from({ length: 50_000 }, (_, i) => `rabbitmq_detailed_queue_messages{vhost="/",queue="q${i}"} ${i}`).join('\n');
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const parsed = await parsePluginText(`${lines}\n`);
    clearInterval(ticking);
    expect(parsed.samples.get('rabbitmq_detailed_queue_messages')).toHaveLength(50_000);
    expect(parsed.samples.get('rabbitmq_detailed_queue_messages')?.[49_999]).toEqual({ labels: { vhost: '/', queue: 'q49999' }, value: 49_999 });
    // Timers ran while it read (none can while a loop holds the thread).
    expect(turns).toBeGreaterThan(0);
  });
});
