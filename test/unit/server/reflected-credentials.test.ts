// Issue 16: an upstream that quotes the request (Authorization header included) in its answers.
// The exporter's real pieces (config, client, runners, failure log, state, landing page,
// /metrics) run against it; no form of the password may come out anywhere. The logger here has
// no redactor of its own, so the logs show that texts are redacted where they are made.
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { loadConfig } from '../../../src/config/load-config.js';
import type { ExporterConfig } from '../../../src/config/exporter-config.js';
import { createLogger } from '../../../src/log.js';
import { ProcessMetrics } from '../../../src/pipeline/process-metrics.js';
import { createApp } from '../../../src/server/app.js';
import { landingPage, listed } from '../../../src/server/landing-page.js';
import { Target } from '../../../src/target.js';
import { handRunners } from '../../support/hand-runners.js';
import { MODES, PASSWORD_SOURCES, reflectingUpstream, secretForms, secretsIn, USER, type PasswordSource, type ReflectingUpstream } from '../../support/reflecting-upstream.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function configFor(source: PasswordSource, upstream: ReflectingUpstream): Promise<ExporterConfig> {
  const dir = mkdtempSync(join(tmpdir(), 'rmqexp-redact-'));
  const { yaml, env } = source.setup(dir, upstream.url);
  const file = join(dir, 'config.yaml');
  writeFileSync(file, `log:\n  level: debug\n${yaml}`);
  return loadConfig({ config: file }, env, COLLECTORS);
}

describe.each(PASSWORD_SOURCES)('an upstream quoting the request, password from the $name', (source) => {
  it('no form of the password in errors, state, logs, the landing page or /metrics', async () => {
    const upstream = await reflectingUpstream();
    cleanups.push(() => upstream.close());
    const config = await configFor(source, upstream);
    expect(config.target.password).toBe(source.password);
    const lines: string[] = [];
    const log = createLogger('debug', { destination: { write: (line: string) => void lines.push(line) } });
    const target = new Target(config, new ProcessMetrics(), log);
    cleanups.push(() => target.stop());
    const texts: { where: string; text: string }[] = [];

    // The client's own errors, one per kind of answer.
    for (const mode of MODES) {
      upstream.mode = mode;
      for (const path of ['/api/overview', '/api/nodes']) {
        const error = await target.client.getJson(path).then(
          () => new Error(`${mode}: expected a failure`),
          (e: unknown) => e,
        );
        texts.push({ where: `error of ${mode} ${path}`, text: `${String(error)}\n${(error as Error).stack}\n${inspect(error, { depth: 10 })}` });
      }
    }

    // Every collector polled against each kind of answer: first with the overview failing too
    // (every poll fails on it), then with a good overview (each collector's own requests fail).
    const runners = handRunners(target);
    for (const overviewOk of [false, true]) {
      upstream.overviewOk = overviewOk;
      for (const mode of MODES) {
        upstream.mode = mode;
        for (const runner of runners) await runner.pollOnce();
        for (const c of target.state.collectors.values()) texts.push({ where: `lastError of ${c.name} (${mode})`, text: c.lastError ?? '' });
        texts.push({ where: `landing page (${mode}, overview ${overviewOk ? 'ok' : 'reflected'})`, text: landingPage([listed(target)]).html });
      }
    }

    const app = createApp(() => [target], log);
    const base = await listen(app.listen(0, '127.0.0.1'));
    texts.push({ where: 'GET /', text: await (await fetch(`${base}/`)).text() });
    texts.push({ where: 'GET /metrics', text: await (await fetch(`${base}/metrics`)).text() });
    texts.push({ where: 'logs', text: lines.join('') });

    // The upstream did quote the credentials in every kind of answer, and the quotes got through.
    for (const mode of MODES) {
      expect(upstream.served.overview.get(mode), `${mode} on /api/overview`).toBeGreaterThan(0);
      expect(upstream.served.other.get(mode), `${mode} on other paths`).toBeGreaterThan(0);
    }
    const forms = secretForms(USER, source.password);
    const found = texts.map(({ where, text }) => ({ where, forms: secretsIn(text, forms) })).filter((f) => f.forms.length > 0);
    expect(found).toEqual([]);
    expect(texts.find((t) => t.where.startsWith('landing page'))?.text).toContain('&#60;redacted&#62;');
  });
});
