// The configuration loader on bad files: each refused with a message naming the file and key
// (the expected message beside each file in testdata/).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../../../src/collectors/registry.js';
import { TESTDATA, td, load, configError, fileTempDir } from './load-helpers.js';

const tmp = fileTempDir();

describe('bad files', () => {
  const files = readdirSync(TESTDATA).filter((f) => f.startsWith('bad-') && f.endsWith('.yaml'));

  it('every bad file has its .expected message', () => {
    expect(files.length).toBeGreaterThanOrEqual(20);
    for (const file of files) expect(existsSync(td(file.replace(/\.yaml$/, '.expected'))), file).toBe(true);
  });

  it.each(files)('%s is refused with its message, naming the file', (file) => {
    const expected = readFileSync(td(file.replace(/\.yaml$/, '.expected')), 'utf8').trim();
    const error = configError(() => load(td(file)));
    expect(error.message).toContain(expected);
    expect(error.message).toContain(`config file ${td(file)}`);
  });

  it('messages of schema errors name the key in "quotes" (one line per problem)', () => {
    const error = configError(() => load(td('bad-unknown-nested-key.yaml')));
    expect(error.message).toBe(`invalid configuration:\n  config file ${td('bad-unknown-nested-key.yaml')}: key "poll.intervall": unknown key (did you mean "interval"?)`);
  });

  it('an unknown collector lists the known ones', () => {
    const error = configError(() => load(td('bad-unknown-collector.yaml')));
    expect(error.message).toContain(`(known collectors: ${COLLECTORS.map((c) => c.name).join(', ')})`);
    expect(error.message).toMatch(/\(known collectors: overview, nodes[,)]/);
  });

  it('a key that is nowhere near a known one gets no guess', () => {
    const file = join(tmp(), 'far.yaml');
    writeFileSync(file, 'poll:\n  cadence: 10s\n');
    expect(configError(() => load(file)).message).toBe(`invalid configuration:\n  config file ${file}: key "poll.cadence": unknown key`);
  });

  it('a duration without a unit says which unit to add; a missing file says so in words', () => {
    const file = join(tmp(), 'no-unit.yaml');
    writeFileSync(file, 'poll:\n  interval: 30\n');
    expect(configError(() => load(file)).message).toContain('key "poll.interval": 30 has no unit: write a duration such as 30s (units ms, s, m, h, d)');
    expect(configError(() => load(join(tmp(), 'absent.yaml'))).message).toBe(`config file ${join(tmp(), 'absent.yaml')}: cannot be read: no such file (flag --config.file)`);
  });

  it('a wrong type says what was expected', () => {
    const error = configError(() => load(td('bad-wrong-type.yaml')));
    expect(error.message).toMatch(/key "target\.max_concurrent_requests": .*expected number/);
  });

  it('several problems are all reported', () => {
    const file = join(tmp(), 'several.yaml');
    writeFileSync(file, 'poll:\n  interval: soon\nlog:\n  level: loud\nextra: 1\n');
    const error = configError(() => load(file));
    expect(error.message).toContain('key "poll.interval"');
    expect(error.message).toContain('key "log.level"');
    expect(error.message).toContain('key "extra": unknown key');
    expect(error.message.split('\n')).toHaveLength(4);
  });

  it('a YAML syntax error names the file and the line', () => {
    const error = configError(() => load(td('bad-yaml-syntax.yaml')));
    expect(error.message).toMatch(/^config file test\/unit\/config\/testdata\/bad-yaml-syntax\.yaml: not valid YAML: .* at line \d+, column \d+/);
    // Only the first line of the parser's pretty message: no source excerpt spread over lines.
    expect(error.message).not.toContain('\n');
  });

  // Was a bug (readYaml, now in src/config/sources.ts): a duplicated key was reported with the yaml
  // library's "Map keys must be unique at line 3, column 3" only; the key itself
  // ("interval", or its path "poll.interval") was not named, unlike every other key error.
  it('a duplicated key names the key', () => {
    const error = configError(() => load(td('bad-duplicate-key.yaml')));
    expect(error.message).toContain('poll.interval');
  });

  it('an unreadable config file path is refused, naming the path and the reason', () => {
    const missing = join(tmp(), 'nope', 'missing.yaml');
    const error = configError(() => load(missing));
    expect(error.message).toBe(`config file ${missing}: cannot be read: no such file (flag --config.file)`);
  });

  it('a directory as config file is refused', () => {
    const error = configError(() => load(tmp()));
    expect(error.message).toBe(`config file ${tmp()}: cannot be read: not a regular file but a directory (flag --config.file)`);
  });

  // Was a bug (readConfigTree's set, src/config/sources.ts): when the environment set a key below a
  // file value that is not a mapping (`target: localhost`), the file's value was silently
  // replaced by {} instead of being reported, so a broken file went unnoticed.
  it('a non-mapping "target" in the file is reported even when RABBITMQ_URL is set', () => {
    const file = join(tmp(), 'target-scalar.yaml');
    writeFileSync(file, 'target: localhost\n');
    // Without the environment variable it is refused:
    expect(configError(() => load(file)).message).toContain('key "target"');
    // With it, it must still be refused:
    const error = configError(() => load(file, { RABBITMQ_URL: 'http://h.example:15672' }));
    expect(error.message).toContain('key "target"');
  });

  // A bug since fixed, kept as a regression test (src/config/schema.ts duration): durations have no upper bound, but the scheduler and
  // the client use them as setTimeout/AbortSignal.timeout delays, which Node caps at
  // 2^31-1 ms (~24.8 days): a longer value becomes a 1 ms timer (Node prints
  // TimeoutOverflowWarning) and the collector would poll the broker in a tight loop.
  it('a poll.interval longer than a timer can hold (> 24.8 days) is refused', () => {
    const file = join(tmp(), 'huge-interval.yaml');
    writeFileSync(file, 'poll:\n  interval: 1000h\n');
    const error = configError(() => load(file));
    expect(error.message).toContain('key "poll.interval"');
  });
});
