import type { CollectorStatus, TargetStatus } from '../pipeline/target-status.js';
import { causeHint, type HintContext } from '../pipeline/failure-hints.js';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function ago(at: number | undefined, now: number): string {
  if (at === undefined) return 'never';
  return `${((now - at) / 1000).toFixed(1)} s ago`;
}

function hintContext(target: TargetStatus, collector: CollectorStatus): HintContext {
  return { collector: collector.name, timeoutMs: collector.timeoutMs, url: target.url, access: target.access };
}

/** The error of the poll deciding rabbitmq_up when the target is down: its hint is given once, on top. */
function downError(target: TargetStatus): string | undefined {
  return target.verdict.level === 'down' ? target.downReason : undefined;
}

/** The last error and its hint, or what the last successful poll left out and why. */
function trouble(target: TargetStatus, c: CollectorStatus): string {
  if (c.condition === 'failing') {
    const hinted = c.lastFailure !== undefined && c.lastError !== downError(target);
    const hint = hinted ? `<div class="hint">${escapeHtml(causeHint(c.lastFailure, hintContext(target, c)))}</div>` : '';
    return `${escapeHtml(c.lastError ?? '')}${hint}`;
  }
  if (c.condition === 'pending' && target.waitingForBroker.includes(c.name)) return 'not polled until the broker answers';
  if (c.condition === 'partial') {
    return c.leftOut
      .map((r) => `<div>left out ${escapeHtml(r.path)}: ${escapeHtml(r.why)}</div><div class="hint">${escapeHtml(causeHint(r.cause, hintContext(target, c)))}</div>`)
      .join('');
  }
  return '';
}

function collectorRow(target: TargetStatus, c: CollectorStatus, now: number): string {
  return (
    `<tr class="condition-${c.condition}"><td>${escapeHtml(c.name)}</td><td class="condition">${c.condition}</td>` +
    `<td>${c.intervalMs / 1000} s</td><td>${ago(c.lastAttemptAt, now)}</td><td>${ago(c.lastSuccessAt, now)}</td>` +
    `<td>${c.lastDurationSeconds === undefined ? '' : `${c.lastDurationSeconds.toFixed(3)} s`}</td>` +
    `<td>${c.samplesServed}</td><td>${trouble(target, c)}</td></tr>`
  );
}

function brokerLine(target: TargetStatus): string {
  const b = target.broker;
  if (!b) return 'broker: not read yet';
  const cluster = b.clusterName ? `cluster ${b.clusterName}` : 'cluster name not given';
  return `${b.productName} ${b.productVersion} · ${cluster}${b.node ? ` · answered by ${b.node}` : ''}`;
}

/** Why a down target is down, as a hint: the cause of its deciding collector's failure. */
function downHint(target: TargetStatus): string {
  if (target.verdict.level !== 'down') return '';
  const decider = target.collectors.find((c) => c.name === target.upCollector);
  if (!decider?.lastFailure) return '';
  return `<p class="hint">${escapeHtml(causeHint(decider.lastFailure, hintContext(target, decider)))}</p>`;
}

/** One target: its verdict line, its broker, and its collectors, failing and partial first. */
export function targetSection(target: TargetStatus, now: number, probePath: string): string {
  const { level, why } = target.verdict;
  const probe = `${probePath}?target=${encodeURIComponent(target.name)}`;
  const rows = target.collectors.map((c) => collectorRow(target, c, now)).join('\n');
  return `<section class="target verdict-${level}">
<h2><span class="verdict">${level}</span> <a href="/?target=${escapeHtml(encodeURIComponent(target.name))}">${escapeHtml(target.name)}</a> <small>${escapeHtml(target.url)}</small></h2>
<p class="why">${escapeHtml(why)}</p>
${downHint(target)}<p class="broker">${escapeHtml(brokerLine(target))} · series: <a href="${escapeHtml(probe)}">${escapeHtml(probe)}</a></p>
<table>
<tr><th>collector</th><th>state</th><th>interval</th><th>last poll</th><th>last success</th><th>duration</th><th>samples served</th><th>trouble</th></tr>
${rows}
</table>
</section>`;
}
