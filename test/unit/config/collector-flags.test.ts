// --collector.NAME and --no-collector.NAME (the exporter-toolkit's spelling) over the file's `enabled`.
import { describe, expect, it } from 'vitest';
import { configLoader } from './load-with.js';

const { load, problem } = configLoader('rmqexp-collector-flags-');
const enabled = (config: ReturnType<typeof load>, name: string) => config.targets[0]!.collectors.find((c) => c.name === name)?.enabled;

describe('collector flags', () => {
  it('enable and disable collectors over the file, and name themselves as the source', () => {
    const file = 'collectors:\n  shovels:\n    enabled: false\n  connections:\n    enabled: true\n';
    const config = load(['--collector.shovels', '--no-collector.connections'], {}, file);
    expect(enabled(config, 'shovels')).toBe(true);
    expect(enabled(config, 'connections')).toBe(false);
    expect(enabled(load([], {}, file), 'shovels')).toBe(false);
    expect(enabled(load(['--no-collector.channels']), 'channels')).toBe(false);
  });

  it('an unknown name is refused with the closest one and the list', () => {
    expect(problem(['--no-collector.queus'])).toMatch(/^flag --no-collector\.queus: no collector named "queus" \(did you mean "queues"\?\); the collectors: overview, nodes, queues/);
  });

  it('the overview cannot be disabled, and the message names the flag', () => {
    expect(problem(['--no-collector.overview'])).toBe('flag --no-collector.overview: key "collectors.overview.enabled": the overview collector cannot be disabled, it decides rabbitmq_up');
  });
});
