import { DASHBOARDS, dashboardFile, dashboardPath } from './dashboard-files.js';
import { PROMETHEUS_RULE_FILE, RULES_FILE, RULES_TEST_FILE, prometheusRuleFile, rulesFile, rulesTestFile } from './rule-files.js';

/** Every generated file: repository-relative path → content. */
export function generatedFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const spec of DASHBOARDS) files.set(dashboardPath(spec), dashboardFile(spec));
  files.set(RULES_FILE, rulesFile());
  files.set(RULES_TEST_FILE, rulesTestFile());
  files.set(PROMETHEUS_RULE_FILE, prometheusRuleFile());
  return files;
}
