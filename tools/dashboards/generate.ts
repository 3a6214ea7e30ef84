import { DASHBOARDS, dashboardFile, dashboardPath } from './dashboard-files.js';
import { DEFAULT_RUNBOOK_URL } from './runbook-url.js';
import { PROMETHEUS_RULE_FILE, RULES_FILE, RULES_TEST_FILE, prometheusRuleFile, rulesFile, rulesTestFile } from './rule-files.js';

/** Every generated file: repository-relative path → content; `runbook`: the address of docs/runbook.md the alerts link to. */
export function generatedFiles(runbook = DEFAULT_RUNBOOK_URL): Map<string, string> {
  const files = new Map<string, string>();
  for (const spec of DASHBOARDS) files.set(dashboardPath(spec), dashboardFile(spec));
  files.set(RULES_FILE, rulesFile(runbook));
  files.set(RULES_TEST_FILE, rulesTestFile(runbook));
  files.set(PROMETHEUS_RULE_FILE, prometheusRuleFile(runbook));
  return files;
}
