import type { TargetStatus } from '../state/target-status.js';
import { VERSION } from '../self/version.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function ago(at: number | undefined, now: number): string {
  if (at === undefined) return 'never';
  return `${((now - at) / 1000).toFixed(1)} s ago`;
}

/** `/`: which brokers are watched, whether they answer, and each collector's last poll. */
export function landingPage(targets: readonly TargetStatus[], telemetryPath = '/metrics', now = Date.now(), probePath = '/probe'): string {
  const sections = targets.map((target) => {
    const rows = target.collectors
      .map(
        (c) =>
          `<tr><td>${escapeHtml(c.name)}</td><td>${c.lastSuccess === undefined ? 'pending' : c.lastSuccess ? 'ok' : 'failing'}</td>` +
          `<td>${c.intervalMs / 1000} s</td><td>${ago(c.lastAttemptAt, now)}</td><td>${ago(c.lastSuccessAt, now)}</td>` +
          `<td>${c.lastDurationSeconds === undefined ? '' : `${c.lastDurationSeconds.toFixed(3)} s`}</td>` +
          `<td>${c.samplesServed}</td>` +
          `<td>${escapeHtml(c.lastError ?? '')}</td></tr>`,
      )
      .join('\n');
    const status = target.up ? 'up' : target.downReason ? `down: ${escapeHtml(target.downReason)}` : 'down';
    const probe = `${probePath}?target=${encodeURIComponent(target.name)}`;
    return `<h2>Target ${escapeHtml(target.name)}: ${escapeHtml(target.url)} — ${status}</h2>
<p><a href="${escapeHtml(probe)}">${escapeHtml(probe)}</a></p>
<table>
<tr><th>collector</th><th>state</th><th>interval</th><th>last poll</th><th>last success</th><th>duration</th><th>samples served</th><th>last error</th></tr>
${rows}
</table>`;
  });
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>RabbitMQ exporter</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}</style>
</head><body>
<h1>RabbitMQ exporter ${escapeHtml(VERSION)}</h1>
<p><a href="${escapeHtml(telemetryPath)}">Metrics</a> · <a href="/-/healthy">Health</a> · <a href="/-/ready">Readiness</a></p>
<p>Series are polled from the management API in the background; a scrape serves the latest snapshot.
${targets.length > 1 ? `${targets.length} targets: ${escapeHtml(telemetryPath)} serves the exporter's own series, each target's are on ${escapeHtml(probePath)}?target=NAME.` : ''}</p>
${sections.join('\n')}
</body></html>
`;
}
