// The exporter's log lines: JSON with the level as a word, as the exporter-toolkit's logs have it.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';

describe('createLogger', () => {
  it('writes the level as its name in JSON lines', () => {
    const lines: string[] = [];
    const log = createLogger('debug', { destination: { write: (line: string) => void lines.push(line) } });
    log.debug('d');
    log.info('i');
    log.warn({ collector: 'queues' }, 'w');
    log.error('e');
    const parsed = lines.map((line) => JSON.parse(line) as { level: unknown; msg: string });
    expect(parsed.map((l) => [l.level, l.msg])).toEqual([['debug', 'd'], ['info', 'i'], ['warn', 'w'], ['error', 'e']]);
  });

  it('still filters by level', () => {
    const lines: string[] = [];
    const log = createLogger('warn', { destination: { write: (line: string) => void lines.push(line) } });
    log.info('not written');
    log.warn('written');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['written']);
  });
});
