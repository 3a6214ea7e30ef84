// Issue 16, end to end: the built exporter (dist/src/main.js, as an operator runs it, at log
// level debug) against an upstream that quotes the request in every answer. Its stdout, `/` and
// `/metrics` hold no form of the password, whichever way the password was given.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { eventually } from '../../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { MODES, PASSWORD_SOURCES, reflectingUpstream, secretForms, secretsIn, USER, type PasswordSource, type ReflectingUpstream } from '../../support/reflecting-upstream.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const servedAll = (served: Map<string, number>) => MODES.every((m) => (served.get(m) ?? 0) > 0);

async function run(source: PasswordSource): Promise<{ source: PasswordSource; upstream: ReflectingUpstream; texts: Record<string, string> }> {
  const upstream = await reflectingUpstream();
  cleanups.push(() => upstream.close());
  const { yaml, env } = source.setup(mkdtempSync(join(tmpdir(), 'rmqexp-redact-e2e-')), upstream.url);
  const exporter: ExporterProcess = await startExporter({
    configYaml: `log:\n  level: debug\npoll:\n  interval: 1s\n  jitter: 0\n  backoff_max: 1s\n${yaml}`,
    env,
  });
  cleanups.push(() => exporter.stop());
  // Every kind of answer on the overview (every collector fails on it), then on the other paths.
  await eventually(async () => (servedAll(upstream.served.overview) ? true : undefined), 40_000, `${source.name}: each answer on /api/overview`);
  upstream.overviewOk = true;
  await eventually(async () => (servedAll(upstream.served.other) ? true : undefined), 40_000, `${source.name}: each answer on the other paths`);
  const page = await (await fetch(`${exporter.url}/`)).text();
  const metrics = (await exporter.metrics()).text;
  await exporter.stop();
  return { source, upstream, texts: { stdout: exporter.logs(), 'GET /': page, 'GET /metrics': metrics } };
}

it('no form of any password in the logs, on / or on /metrics', async () => {
  const results = await Promise.all(PASSWORD_SOURCES.map(run));
  for (const { source, texts } of results) {
    const forms = secretForms(USER, source.password);
    for (const [where, text] of Object.entries(texts)) expect(secretsIn(text, forms), `${source.name}: ${where}`).toEqual([]);
    // The quotes reached the exporter and were cut out.
    expect(texts.stdout, source.name).toContain('<redacted>');
    expect(texts.stdout, source.name).toContain('"level":"debug"');
  }
}, 120_000);
