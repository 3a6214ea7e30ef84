// Conventions operators expect of an exporter, on the built binary (npm test builds dist/ first).
import { execFileSync } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { samples } from '../../support/parse-exposition.js';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { closedPort } from '../../support/http-server.js';

let exporter: ExporterProcess | undefined;
afterEach(async () => {
  await exporter?.stop();
  exporter = undefined;
});

it('--web.telemetry-path moves the metrics; --log.format logfmt; build_info names the source revision', async () => {
  const broker = await closedPort();
  exporter = await startExporter({
    configYaml: `target:\n  url: http://127.0.0.1:${broker}\n`,
    args: ['--web.telemetry-path', '/prom', '--log.format', 'logfmt', '--log.level', 'debug'],
    metricsPath: '/prom',
  });
  const { status, text } = await exporter.metrics();
  expect(status).toBe(200);
  expect((await fetch(`${exporter.url}/metrics`)).status).toBe(404);
  expect(await (await fetch(`${exporter.url}/`)).text()).toContain('<a href="/prom">');

  const revision = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
  const branch = execFileSync('git', ['rev-parse', '--abbrev-ref', 'HEAD'], { encoding: 'utf8' }).trim();
  const build = [...samples(text).keys()].find((k) => k.startsWith('rabbitmq_exporter_build_info{'));
  expect(build).toContain(`revision="${revision}",branch="${branch}",nodejs_version="${process.version}"`);

  const starting = exporter.logs().split('\n').find((l) => l.includes('msg=starting'));
  expect(starting).toMatch(/^ts=\S+ level=info msg=starting service=rabbitmq-exporter version=\S+ revision=\S+ /);
  expect(starting).not.toMatch(/ config\./);
  const details = exporter.logs().split('\n').find((l) => l.includes('msg="configuration in force"'));
  expect(details).toMatch(/^ts=\S+ level=debug /);
  expect(details).toContain('config.target.password=<redacted>');
  expect(exporter.logs()).not.toMatch(/^\{/m);
}, 60_000);

it('--version prints version, branch, revision, build user and date, Node and platform, as the exporter-toolkit does', () => {
  const revision = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
  const branch = execFileSync('git', ['rev-parse', '--abbrev-ref', 'HEAD'], { encoding: 'utf8' }).trim();
  const printed = execFileSync(process.execPath, ['dist/src/main.js', '--version'], { encoding: 'utf8' }).split('\n');
  expect(printed[0]).toMatch(new RegExp(`^rabbitmq-exporter, version \\d+\\.\\d+\\.\\d+\\S* \\(branch: ${branch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, revision: ${revision}\\)$`));
  expect(printed[1]).toMatch(/^ {2}build user: +\S+@\S+$/);
  expect(printed[2]).toMatch(/^ {2}build date: +\d{8}-\d{2}:\d{2}:\d{2}$/);
  expect(printed[3]).toBe(`  node version:     ${process.version}`);
  expect(printed[4]).toBe(`  platform:         ${process.platform}/${process.arch}`);
});

it('refuses a telemetry path that is not a path, exit code 2', async () => {
  await expect(startExporter({ configYaml: '', args: ['--web.telemetry-path', 'metrics'] })).rejects.toThrow(
    /exited with 2[\s\S]*flag --web.telemetry-path: key "web.telemetry_path": must be a path starting with \//,
  );
}, 60_000);
