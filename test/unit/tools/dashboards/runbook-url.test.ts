// Issue 32 item 10: each alert's runbook_url is an absolute link to its section of docs/runbook.md,
// set by one option of `npm run dashboards` and by one literal of deploy/kustomization.yaml.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { alertRules } from '../../../../tools/dashboards/alerts.js';
import { generatedFiles } from '../../../../tools/dashboards/generate.js';
import { ALERTS_GROUP, PROMETHEUS_RULE_FILE, RULES_FILE, RULES_TEST_FILE } from '../../../../tools/dashboards/rule-files.js';
import { DEFAULT_RUNBOOK_URL, checkRunbookUrl } from '../../../../tools/dashboards/runbook-url.js';
import { REPO_ROOT } from '../../../support/fixtures.js';
import { toolsRequired } from '../../../support/required-tools.js';

/** The anchors GitHub gives the headings of a Markdown file (lower case, punctuation dropped, spaces to hyphens). */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of markdown.matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    anchors.add(heading!.toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-'));
  }
  return anchors;
}

/** Every runbook_url anywhere in a parsed YAML document. */
function runbookUrls(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(runbookUrls);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => (key === 'runbook_url' ? [String(v)] : runbookUrls(v)));
}

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const anchors = headingAnchors(read('docs/runbook.md'));

describe('runbook_url', () => {
  it.each([RULES_FILE, PROMETHEUS_RULE_FILE, RULES_TEST_FILE])('in %s: absolute, and pointing to a section of docs/runbook.md', (file) => {
    const urls = runbookUrls(parse(read(file)));
    // One per alert in the rule files; the test file expects one per firing alert of its cases.
    expect(urls.length).toBeGreaterThanOrEqual(alertRules.length);
    for (const url of urls) {
      const parsed = new URL(url); // throws on a relative one
      expect(['https:', 'http:'], url).toContain(parsed.protocol);
      expect(url.slice(0, url.indexOf('#')), url).toBe(DEFAULT_RUNBOOK_URL);
      expect(anchors, `${url}: no heading of docs/runbook.md has the anchor ${parsed.hash}`).toContain(parsed.hash.slice(1));
    }
  });

  it('every alert links to its own section', () => {
    const rules = parse(read(RULES_FILE)) as { groups: { rules: { alert?: string; annotations?: { runbook_url: string } }[] }[] };
    const alerts = rules.groups.flatMap((g) => g.rules).filter((r) => r.alert !== undefined);
    expect(alerts.map((r) => r.alert)).toEqual(alertRules.map((r) => r.alert));
    for (const rule of alerts) expect(rule.annotations?.runbook_url).toBe(`${DEFAULT_RUNBOOK_URL}#${rule.alert!.toLowerCase()}`);
  });

  it('npm run dashboards --runbook-url sets the address in every generated rule file', () => {
    const mine = 'https://wiki.example.org/ops/rabbitmq/runbook';
    for (const file of [RULES_FILE, PROMETHEUS_RULE_FILE, RULES_TEST_FILE]) {
      const urls = runbookUrls(parse(generatedFiles(mine).get(file)!));
      expect(urls.length, file).toBeGreaterThanOrEqual(alertRules.length);
      for (const url of urls) expect(url, file).toMatch(new RegExp(`^${mine}#[a-z]+$`));
    }
  });

  it('a runbook address that is not an absolute http(s) URL without fragment is refused, naming the option', () => {
    expect(checkRunbookUrl('https://wiki.example.org/runbook.md')).toBe('https://wiki.example.org/runbook.md');
    expect(() => checkRunbookUrl('docs/runbook.md')).toThrow('--runbook-url "docs/runbook.md": not an absolute URL; give the http(s) address at which your copy of docs/runbook.md is served');
    expect(() => checkRunbookUrl('file:///srv/runbook.md')).toThrow('--runbook-url "file:///srv/runbook.md": the scheme is file:, not http: or https:');
    expect(() => checkRunbookUrl('https://wiki.example.org/runbook.md#top')).toThrow('it has a #fragment, and each alert adds its own');
  });
});

interface Kustomization {
  configMapGenerator: { name: string; literals: string[] }[];
  replacements: { source: { kind: string; name: string; fieldPath: string }; targets: { select: { kind: string; name: string }; fieldPaths: string[]; options: { delimiter: string; index: number } }[] }[];
}

describe('runbook_url in deploy/kustomization.yaml', () => {
  const kustomization = parse(read('deploy/kustomization.yaml')) as Kustomization;
  const literal = (k: Kustomization) => k.configMapGenerator.flatMap((g) => g.literals).find((l) => l.startsWith('url='))?.slice('url='.length);

  it('its url setting is the generator\'s default, and its replacement rewrites the runbook_url of the alert group', () => {
    expect(literal(kustomization)).toBe(DEFAULT_RUNBOOK_URL);
    const [replacement] = kustomization.replacements;
    expect(replacement?.source).toEqual({ kind: 'ConfigMap', name: kustomization.configMapGenerator[0]!.name, fieldPath: 'data.url' });
    const crd = parse(read(PROMETHEUS_RULE_FILE)) as { metadata: { name: string }; spec: { groups: { name: string }[] } };
    expect(replacement?.targets).toEqual([
      {
        select: { kind: 'PrometheusRule', name: crd.metadata.name },
        fieldPaths: [`spec.groups.[name=${ALERTS_GROUP}].rules.*.annotations.runbook_url`],
        options: { delimiter: '#', index: 0 },
      },
    ]);
    expect(crd.spec.groups.map((g) => g.name)).toContain(ALERTS_GROUP);
  });

  // kustomize itself, as `kubectl apply -k` runs it: skipped where kubectl is missing, unless the
  // tools are required (.ci/run installs it where the machine lacks it).
  const kubectl = process.env.KUBECTL_BIN ?? 'kubectl';
  const skipWithoutKubectl = spawnSync(kubectl, ['version', '--client'], { stdio: 'ignore' }).status !== 0 && !toolsRequired();
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  function build(root: string) {
    const result = spawnSync(kubectl, ['kustomize', join(root, 'deploy')], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    return parseAllDocuments(result.stdout).map((d) => d.toJS() as { kind: string; metadata: { name: string } });
  }

  it.skipIf(skipWithoutKubectl)('kubectl kustomize: every alert links to url#<alert>, and the setting ConfigMap is not applied', { timeout: 60_000 }, () => {
    const objects = build(REPO_ROOT);
    expect(objects.filter((o) => o.metadata.name === kustomization.configMapGenerator[0]!.name)).toEqual([]);
    const urls = runbookUrls(objects.filter((o) => o.kind === 'PrometheusRule'));
    expect(urls).toEqual(alertRules.map((r) => `${DEFAULT_RUNBOOK_URL}#${r.alert.toLowerCase()}`));
  });

  it.skipIf(skipWithoutKubectl)('kubectl kustomize: changing the url literal changes every alert\'s link', { timeout: 60_000 }, () => {
    const root = mkdtempSync(join(tmpdir(), 'rmqexp-kustomize-'));
    dirs.push(root);
    cpSync(join(REPO_ROOT, 'deploy'), join(root, 'deploy'), { recursive: true });
    cpSync(join(REPO_ROOT, 'dashboards/kubernetes'), join(root, 'dashboards/kubernetes'), { recursive: true });
    const mine = 'https://wiki.example.org/ops/rabbitmq/runbook.html';
    const text = read('deploy/kustomization.yaml');
    expect(text).toContain(`url=${DEFAULT_RUNBOOK_URL}`);
    writeFileSync(join(root, 'deploy/kustomization.yaml'), text.replace(`url=${DEFAULT_RUNBOOK_URL}`, `url=${mine}`));
    const urls = runbookUrls(build(root).filter((o) => o.kind === 'PrometheusRule'));
    expect(urls).toEqual(alertRules.map((r) => `${mine}#${r.alert.toLowerCase()}`));
  });
});
