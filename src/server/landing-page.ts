import { VERDICT_RANK, type TargetStatus, type Verdict, type VerdictLevel } from '../pipeline/target-status.js';
import { VERSION } from '../pipeline/version.js';
import type { ServedTarget } from './served-target.js';
import { SIMULATED_STYLE, simulatedBanner } from './simulated-banner.js';
import { escapeHtml, targetSection } from './target-section.js';

/** Targets shown in detail on one page: 10,000 tables would make a page of tens of megabytes. */
export const TARGETS_PER_PAGE = 10;

/** How much of an unknown target name the page quotes. */
const QUOTED_NAME_CHARS = 64;

/** A target as the page lists it: its verdict for every target, its whole status only for those shown. */
export interface LandingTarget {
  readonly name: string;
  readonly verdict: Verdict;
  status(): TargetStatus;
}

/** A served target as the page lists it: its status copied only when asked. */
export function listed(target: ServedTarget): LandingTarget {
  return { name: target.name, verdict: target.verdict(), status: () => target.status() };
}

export interface LandingPageOptions {
  telemetryPath?: string;
  probePath?: string;
  now?: number;
  /** `?page=`: which page of targets, worst first (1 when absent). */
  page?: string;
  /** `?target=`: one target only. */
  target?: string;
}

export interface LandingPage {
  status: number;
  html: string;
}

const STYLE = `body{font-family:sans-serif;margin:2em;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top;white-space:nowrap}td:last-child{white-space:normal}
.target{margin:1.5em 0;padding:0 1em 1em;border-left:6px solid #ccc}
.verdict{display:inline-block;padding:2px 10px;border-radius:4px;color:#fff;text-transform:uppercase;font-size:.8em}
.verdict-down{border-color:#c62828}.verdict-down .verdict{background:#c62828}
.verdict-degraded{border-color:#e08a00}.verdict-degraded .verdict{background:#e08a00}
.verdict-starting{border-color:#607d8b}.verdict-starting .verdict{background:#607d8b}
.verdict-healthy{border-color:#2e7d32}.verdict-healthy .verdict{background:#2e7d32}
.why{font-weight:bold}.hint{color:#6d4c00;font-style:italic}
tr.condition-failing{background:#fde0e0}tr.condition-failing .condition{color:#b71c1c;font-weight:bold}
tr.condition-partial{background:#fff1d0}tr.condition-partial .condition{color:#8a5300;font-weight:bold}
tr.condition-pending{color:#777}
.counts span{margin-right:1em}.count-down{color:#c62828}.count-degraded{color:#b36b00}.count-healthy{color:#2e7d32}
small{color:#666;font-weight:normal}
${SIMULATED_STYLE}`;

function page(body: string, status = 200): LandingPage {
  return {
    status,
    html: `<!doctype html>
<html><head><meta charset="utf-8"><title>RabbitMQ exporter</title>
<style>${STYLE}</style>
</head><body>
<h1>RabbitMQ exporter ${escapeHtml(VERSION)}</h1>
${body}
</body></html>
`,
  };
}

function counts(targets: readonly LandingTarget[]): string {
  const by: Record<VerdictLevel, number> = { down: 0, degraded: 0, starting: 0, healthy: 0 };
  for (const t of targets) by[t.verdict.level]++;
  const levels = (Object.keys(VERDICT_RANK) as VerdictLevel[]).filter((level) => by[level] > 0);
  const parts = levels.map((level) => `<span class="count-${level}">${by[level].toLocaleString('en-US')} ${level}</span>`);
  const total = `${targets.length.toLocaleString('en-US')} target${targets.length === 1 ? '' : 's'}`;
  return `<p class="counts">${total}: ${parts.join(' ')}</p>`;
}

function pager(current: number, last: number): string {
  if (last <= 1) return '';
  const link = (n: number, text: string) => `<a href="/?page=${n}">${text}</a>`;
  const previous = current > 1 ? `${link(1, 'first')} · ${link(current - 1, 'previous')} · ` : '';
  const next = current < last ? ` · ${link(current + 1, 'next')} · ${link(last, 'last')}` : '';
  return `<p class="pager">${previous}page ${current.toLocaleString('en-US')} of ${last.toLocaleString('en-US')}, worst first${next}</p>`;
}

function quoted(name: string): string {
  const cut = [...name].slice(0, QUOTED_NAME_CHARS).join('');
  return escapeHtml(JSON.stringify(cut) + (cut.length < name.length ? '…' : ''));
}

/**
 * `/`: an operator's page. Counts of targets by verdict, then the targets in detail, worst first
 * (down, degraded, starting, healthy; then by name), TARGETS_PER_PAGE to a page (`?page=N`), or one
 * (`?target=NAME`).
 */
export function landingPage(targets: readonly LandingTarget[], options: LandingPageOptions = {}): LandingPage {
  const { telemetryPath = '/metrics', probePath = '/probe', now = Date.now() } = options;
  const links = `<p><a href="${escapeHtml(telemetryPath)}">Metrics</a> · <a href="/-/healthy">Health</a> · <a href="/-/ready">Readiness</a>${
    options.target !== undefined ? ' · <a href="/">All targets</a>' : ''
  }</p>`;
  const about = `<p>Series are polled from the management API in the background; a scrape serves the latest snapshot.${
    targets.length > 1 ? ` ${escapeHtml(telemetryPath)} serves the exporter's own series, each target's are on ${escapeHtml(probePath)}?target=NAME.` : ''
  }</p>`;

  if (options.target !== undefined) {
    const one = targets.find((t) => t.name === options.target);
    if (!one) return page(`${links}<p class="error">No target is named ${quoted(options.target)}.</p>`, 404);
    const status = one.status();
    return page(`${simulatedBanner([status])}${links}\n${targetSection(status, now, probePath)}`);
  }

  const last = Math.max(1, Math.ceil(targets.length / TARGETS_PER_PAGE));
  const asked = options.page ?? '1';
  if (!/^[1-9][0-9]{0,8}$/.test(asked)) return page(`${links}<p class="error">page must be a whole number from 1 to ${last}, not ${quoted(asked)}.</p>`, 400);
  const current = Number(asked);
  if (current > last) return page(`${links}<p class="error">There is no page ${current}: the last is <a href="/?page=${last}">${last}</a>.</p>`, 404);

  const sorted = [...targets].sort((a, b) => VERDICT_RANK[a.verdict.level] - VERDICT_RANK[b.verdict.level] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const shown = sorted.slice((current - 1) * TARGETS_PER_PAGE, current * TARGETS_PER_PAGE);
  const nav = pager(current, last);
  const statuses = shown.map((t) => t.status());
  const sections = statuses.map((s) => targetSection(s, now, probePath)).join('\n');
  return page(`${simulatedBanner(statuses)}${links}\n${about}\n${counts(targets)}\n${nav}\n${sections}\n${nav}`);
}
