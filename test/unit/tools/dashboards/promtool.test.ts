import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROMETHEUS_RULE_FILE, RULES_FILE, RULES_TEST_FILE } from '../../../../tools/dashboards/rule-files.js';
import { REPO_ROOT } from '../../../support/fixtures.js';
import { PROMTOOL, promtoolInstalled, skipWithoutPromtool } from '../../../support/required-tools.js';

const promtool = PROMTOOL;
const installed = promtoolInstalled;

function run(args: string[]) {
  const result = spawnSync(promtool, args, { cwd: REPO_ROOT, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe.skipIf(skipWithoutPromtool)('Prometheus rules under promtool', () => {
  it('promtool is installed', () => {
    expect(installed, `${promtool} not found (apt-get install prometheus, or set PROMTOOL_BIN)`).toBe(true);
  });

  it('promtool check rules accepts the rule file', () => {
    const { status, output } = run(['check', 'rules', RULES_FILE]);
    expect(output).toMatch(/SUCCESS: \d+ rules found/);
    expect(status, output).toBe(0);
  }, 60_000);

  it('promtool test rules: every alert fires in its firing cases and stays silent in the others', () => {
    const { status, output } = run(['test', 'rules', RULES_TEST_FILE]);
    expect(status, output).toBe(0);
    expect(output).toContain('SUCCESS');
  }, 120_000);

  it('the PrometheusRule carries the same groups as the rule file', () => {
    const rules = parse(readFileSync(join(REPO_ROOT, RULES_FILE), 'utf8')) as { groups: unknown };
    const crd = parse(readFileSync(join(REPO_ROOT, PROMETHEUS_RULE_FILE), 'utf8')) as { kind: string; spec: { groups: unknown } };
    expect(crd.kind).toBe('PrometheusRule');
    expect(crd.spec.groups).toEqual(rules.groups);
  });
});
