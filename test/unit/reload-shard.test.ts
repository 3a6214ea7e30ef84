// Issue 14 ("Past one process"): the shard follows a reload of the config file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { loadConfig } from '../../src/config/load-config.js';
import { Exporter } from '../../src/exporter.js';
import { ProcessMetrics } from '../../src/pipeline/process-metrics.js';
import { shardOf } from '../../src/model/shard-assignment.js';
import { serveApi, type TestServer } from '../support/http-server.js';

let dir: string;
let broker: TestServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rmqexp-reload-shard-'));
  broker = await serveApi({ '/api/overview': readFileSync('test/fixtures/rabbitmq-3.10.8/overview.json', 'utf8') });
});
afterAll(async () => {
  await broker.close();
  rmSync(dir, { recursive: true, force: true });
});

it('a reload that changes sharding restarts the target on its new share and reports the new shard; a bad one keeps the old', async () => {
  const file = join(dir, 'config.yaml');
  const config = (sharding: string) => `log:\n  level: silent\npoll:\n  interval: 1s\ntarget:\n  url: ${broker.url}\n${sharding}`;
  writeFileSync(file, config(''));
  const flags = { help: false, version: false, config: file };
  const exporter = new Exporter(loadConfig(flags, {}, COLLECTORS), flags, {}, new ProcessMetrics(), pino({ level: 'silent' }));
  exporter.start();
  try {
    const text = async () => (await exporter.targets[0]!.store.current()).body('text').toString();
    expect(await text()).toContain('rabbitmq_exporter_total_shards 1\n');
    const first = exporter.targets[0];
    expect(first!.share.whole).toBe(true);

    // The shard that does not own the target's name: its cluster-wide series go.
    const other = 1 - shardOf('default', 2);
    writeFileSync(file, config(`sharding:\n  shard: ${other}\n  total_shards: 2\n`));
    expect(await exporter.reload()).toEqual({ ok: true, changed: true, restartRequired: [] });
    const second = exporter.targets[0]!;
    expect(second).not.toBe(first);
    expect(second.share.ownsClusterSeries).toBe(false);
    expect(await text()).toContain(`rabbitmq_exporter_shard_ordinal ${other}\n`);
    expect(await text()).toContain('rabbitmq_exporter_total_shards 2\n');
    expect(await text()).not.toMatch(/^rabbitmq_up /m);

    writeFileSync(file, config('sharding:\n  shard: 2\n  total_shards: 2\n'));
    expect(await exporter.reload()).toMatchObject({ ok: false, error: expect.stringContaining('key "sharding.shard": 2 must be below the number of shards, 2') });
    expect(exporter.targets[0]).toBe(second);
    expect(await text()).toContain('rabbitmq_exporter_total_shards 2\n');
  } finally {
    await exporter.stop();
  }
});
