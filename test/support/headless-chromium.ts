/**
 * A real headless browser for the landing page's test and screenshots: Debian's `chromium`
 * (CHROMIUM_PATH to use another), driven by playwright-core, with a new empty profile each time.
 * Absent, the browser test skips with a message; under CI (CI=true or REQUIRE_BROKER=1, as .ci/run
 * sets) its absence is a failure: .ci/run installs it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { isExecutable, which } from '../harness/broker/availability.js';

export interface ChromiumAvailability {
  path: string | undefined;
  /** Why it cannot run, when it cannot. */
  reason?: string;
}

export function chromiumAvailability(): ChromiumAvailability {
  const override = process.env.CHROMIUM_PATH;
  if (override) return isExecutable(override) ? { path: override } : { path: undefined, reason: `no executable at CHROMIUM_PATH=${override}` };
  const found = which('chromium', ['/usr/bin']);
  return found ? { path: found } : { path: undefined, reason: 'chromium is not installed (apt-get install chromium)' };
}

/** Under CI the browser test must run: a missing chromium fails it instead of skipping it. */
export function browserRequired(): boolean {
  return process.env.REQUIRE_BROKER === '1' || process.env.CI === 'true';
}

/** Chromium's switches: no sandbox (root in a container), no GPU, no network of its own, nothing synced or updated. */
const SWITCHES = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface HeadlessBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** A headless chromium with a new, empty --user-data-dir, removed on close. */
export async function launchChromium(executablePath: string): Promise<HeadlessBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'rmqexp-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: SWITCHES,
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
    });
    return {
      context,
      close: async () => {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}
