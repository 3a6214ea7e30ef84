// Issue 32 item 8: the landing page as an operator sees it, in a real headless chromium, served by
// the real app for targets polled over HTTP (test/support/landing-page-examples.ts). The test takes
// the screenshots of docs/landing-page.md while it checks what they show: `npm run screenshots`
// writes them there (LANDING_PAGE_SCREENSHOTS), otherwise they go to a temporary directory.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/server/app.js';
import { browserRequired, chromiumAvailability, launchChromium, type HeadlessBrowser } from '../../support/headless-chromium.js';
import { landingPageExamples, WRONG_PASSWORD, type LandingPageExamples } from '../../support/landing-page-examples.js';

const chromium = chromiumAvailability();
// `npm run screenshots` needs the browser too: a skipped test would remake nothing.
const required = browserRequired() || process.env.LANDING_PAGE_SCREENSHOTS !== undefined;
if (!chromium.path && !required) {
  console.warn(`\n*** landing page browser test SKIPPED: ${chromium.reason} (CI=true or REQUIRE_BROKER=1 makes it mandatory; .ci/run installs chromium) ***\n`);
}

/** The colours of the page's style sheet, as the browser computes them. */
const RED_ROW = 'rgb(253, 224, 224)';
const AMBER_ROW = 'rgb(255, 241, 208)';
const VERDICT_COLOURS = { down: 'rgb(198, 40, 40)', degraded: 'rgb(224, 138, 0)', healthy: 'rgb(46, 125, 50)' };

// The browser's own, in the functions evaluated in the page (the tests compile without the DOM library).
declare const getComputedStyle: (element: unknown) => { backgroundColor: string };

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe.skipIf(!chromium.path && !required)('the landing page in headless chromium', () => {
  let examples: LandingPageExamples;
  let server: Server;
  let base: string;
  let browser: HeadlessBrowser;
  let page: Page;
  const temporary = mkdtempSync(join(tmpdir(), 'rmqexp-screenshots-'));
  const screenshots = process.env.LANDING_PAGE_SCREENSHOTS ?? temporary;

  beforeAll(async () => {
    if (!chromium.path) throw new Error(`the landing page browser test is mandatory under CI, but ${chromium.reason}`);
    const log = pino({ level: 'silent' });
    examples = await landingPageExamples(log);
    server = createApp(() => examples.targets, log).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium(chromium.path);
    page = await browser.context.newPage();
    mkdirSync(screenshots, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (server) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await examples?.close();
    rmSync(temporary, { recursive: true, force: true });
  });

  /** The verdict word, colour and why line of each target section on the page, in order. */
  async function sections(): Promise<{ name: string; verdict: string; colour: string; why: string }[]> {
    return page.$$eval('section.target', (all) =>
      all.map((section) => {
        const badge = section.querySelector('.verdict') as unknown as { innerText: string };
        return {
          name: section.querySelector('h2 a')?.textContent ?? '',
          verdict: badge.innerText,
          colour: getComputedStyle(badge).backgroundColor,
          why: section.querySelector('.why')?.textContent ?? '',
        };
      }),
    );
  }

  /** Each collector row: name, the state shown, its class and its computed background. */
  async function rows(): Promise<{ collector: string; state: string; className: string; background: string }[]> {
    return page.$$eval('tr[class^="condition-"]', (all) =>
      all.map((row) => ({
        collector: row.querySelector('td')?.textContent ?? '',
        state: row.querySelector('td.condition')?.textContent ?? '',
        className: row.className,
        background: getComputedStyle(row).backgroundColor,
      })),
    );
  }

  async function screenshot(verdict: string): Promise<void> {
    const file = join(screenshots, `landing-page-${verdict}.png`);
    await page.screenshot({ path: file, fullPage: true });
    expect(readFileSync(file).subarray(0, 8).equals(PNG_SIGNATURE), file).toBe(true);
  }

  it('/: counts by verdict, then the targets worst first, each verdict in its colour', async () => {
    await page.goto(`${base}/`);
    expect(await page.locator('p.counts').innerText()).toBe('3 targets: 1 down 1 degraded 1 healthy');
    expect((await sections()).map(({ name, verdict, colour }) => ({ name, verdict, colour }))).toEqual([
      { name: 'analytics', verdict: 'DOWN', colour: VERDICT_COLOURS.down },
      { name: 'billing', verdict: 'DEGRADED', colour: VERDICT_COLOURS.degraded },
      { name: 'orders', verdict: 'HEALTHY', colour: VERDICT_COLOURS.healthy },
    ]);
  });

  it('healthy: every collector ok, the broker version and cluster name shown', async () => {
    await page.goto(`${base}/?target=orders`);
    expect(await sections()).toEqual([{ name: 'orders', verdict: 'HEALTHY', colour: VERDICT_COLOURS.healthy, why: '15 collectors polled, all answering' }]);
    expect(await page.locator('p.broker').innerText()).toMatch(/^RabbitMQ 3\.10\.8 · cluster rabbit@\S+ · answered by rabbit@\S+ · series: \/probe\?target=orders$/);
    const all = await rows();
    expect(all).toHaveLength(15);
    expect(all.every((r) => r.state === 'ok' && r.className === 'condition-ok')).toBe(true);
    await screenshot('healthy');
  });

  it('degraded: the failing collector first in red, the refused one next in amber, each with its hint', async () => {
    await page.goto(`${base}/?target=billing`);
    expect(await sections()).toEqual([
      {
        name: 'billing',
        verdict: 'DEGRADED',
        colour: VERDICT_COLOURS.degraded,
        why: '1 of 15 collectors failing (queues); never succeeded: queues; requests left out by feature_flags',
      },
    ]);
    const [first, second, ...rest] = await rows();
    expect(first).toEqual({ collector: 'queues', state: 'failing', className: 'condition-failing', background: RED_ROW });
    expect(second).toEqual({ collector: 'feature_flags', state: 'partial', className: 'condition-partial', background: AMBER_ROW });
    expect(rest.every((r) => r.className === 'condition-ok')).toBe(true);
    const hints = await page.locator('.hint').allInnerTexts();
    expect(hints[0]).toContain('collectors.queues.vhost_timeout');
    expect(hints[1]).toContain('User "monitor" lacks a tag or permission');
    expect(await page.locator('tr.condition-partial').innerText()).toContain('before RabbitMQ 3.13 it needs the administrator tag');
    await screenshot('degraded');
  });

  it('down: why, and a hint naming the user and where its password came from, never the password', async () => {
    await page.goto(`${base}/?target=analytics`);
    expect(await sections()).toEqual([
      { name: 'analytics', verdict: 'DOWN', colour: VERDICT_COLOURS.down, why: 'overview failed: /api/overview: HTTP 401 (not_authorized: Login failed)' },
    ]);
    expect(await page.locator('section > p.hint').innerText()).toContain('The broker refused user "monitor" (password from config file)');
    const all = await rows();
    expect(all.every((r) => r.className === 'condition-failing' && r.background === RED_ROW)).toBe(true);
    expect(await page.content()).not.toContain(WRONG_PASSWORD);
    await screenshot('down');
  });
});
