/**
 * Where each alert's `runbook_url` points: the absolute address at which docs/runbook.md is
 * served, plus `#<alert>` (the anchor GitHub and most Markdown renderers give the alert's
 * heading). Alertmanager and Grafana show the annotation as a link, which only works absolute.
 * The placeholder below (a reserved .example domain) is what the committed files carry; set
 * yours with `npm run dashboards -- --runbook-url URL`, or in deploy/kustomization.yaml.
 */
export const DEFAULT_RUNBOOK_URL = 'https://rabbitmq-exporter.example/docs/runbook.md';

/** The option of `npm run dashboards` that sets it. */
export const RUNBOOK_URL_OPTION = '--runbook-url';

/** The anchor of an alert's section in docs/runbook.md (`## RabbitmqNodeDown` → `rabbitmqnodedown`). */
export function runbookAnchor(alert: string): string {
  return alert.toLowerCase();
}

export function runbookUrl(alert: string, base: string): string {
  return `${base}#${runbookAnchor(alert)}`;
}

/** The runbook's address as given, or an error naming the option and what is wrong with the value. */
export function checkRunbookUrl(text: string): string {
  const wrong = (why: string) => new Error(`${RUNBOOK_URL_OPTION} ${JSON.stringify(text)}: ${why}; give the http(s) address at which your copy of docs/runbook.md is served, e.g. ${DEFAULT_RUNBOOK_URL}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw wrong('not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw wrong(`the scheme is ${url.protocol}, not http: or https:`);
  if (text.includes('#')) throw wrong('it has a #fragment, and each alert adds its own');
  return text;
}
