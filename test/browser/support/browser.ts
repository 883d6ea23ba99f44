/**
 * Debian's Chromium driven by playwright-core (browsers cannot be downloaded on these
 * machines; ENVIRONMENT.md). One browser per test file, a fresh context per test.
 *
 * Without Chromium the browser tests are skipped with the reason, except in CI (`CI=true`,
 * which .ci/run sets after .ci/chromium.sh installed it): there a missing browser fails them.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { describeIfAvailable } from '../../support/requirement.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Why there is no browser here; undefined when Chromium is installed. */
export const BROWSER_MISSING = existsSync(CHROMIUM)
  ? undefined
  : `Chromium not found at ${CHROMIUM}: install Debian's chromium package (.ci/chromium.sh) or set CHROMIUM_PATH`;

/**
 * A browser test drives several pages against live servers: generous bounds, because on a
 * loaded two-core machine a page can take seconds to settle. Nothing waits for them unless
 * something is wrong; every wait is on a condition.
 */
const TEST_TIMEOUT_MS = 60_000;
export const ACTION_TIMEOUT_MS = 15_000;

/** `describe` where Chromium is; see describeIfAvailable otherwise. */
export function describeInBrowser(name: string, fn: () => void): void {
  describeIfAvailable(name, BROWSER_MISSING, fn, { timeout: TEST_TIMEOUT_MS });
}

export async function launchBrowser(): Promise<Browser> {
  if (BROWSER_MISSING !== undefined) {
    throw new Error(`${BROWSER_MISSING}. In CI the browser tests must run, not be skipped.`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export interface ConsolePage {
  page: Page;
  /** Errors the page threw or logged; a test ends by expecting none. */
  errors: string[];
  /** The page's last requests (method, path, status or failure, ms): for a wait's failure message. */
  network: string[];
  close(): Promise<void>;
}

/** Requests kept in ConsolePage.network, the newest. */
const NETWORK_KEPT = 40;

/**
 * Waits for `text` on the page; when it does not come, fails with what the page showed, the
 * requests it made and the errors it had, so that a wait which times out once (a loaded
 * machine, a request held back) says why.
 */
export async function waitForText(tab: ConsolePage, text: string): Promise<void> {
  try {
    await tab.page.getByText(text).first().waitFor();
  } catch (error) {
    const shown = await tab.page
      .locator('body')
      .innerText({ timeout: 1_000 })
      .catch((reason: unknown) => `(unreadable: ${reason})`);
    throw new Error(
      `"${text}" did not appear: ${(error as Error).message}\npage: ${shown.slice(0, 1_500)}\nrequests:\n${tab.network.join('\n')}\nerrors: ${JSON.stringify(tab.errors)}`,
    );
  }
}

/** A new context and page on the console at `url`, with page errors collected. */
export async function openConsole(browser: Browser, url: string): Promise<ConsolePage> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    // Times on the page are the browser's local time: UTC, so tests can read them.
    timezoneId: 'UTC',
    locale: 'en-GB',
    // The Copy button writes to the clipboard.
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  page.setDefaultTimeout(ACTION_TIMEOUT_MS);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const network: string[] = [];
  const started = new Map<object, number>();
  const record = (line: string) => {
    network.push(line);
    if (network.length > NETWORK_KEPT) network.shift();
  };
  const path = (url: string) => {
    const { pathname, search } = new URL(url);
    return `${pathname}${search}`;
  };
  page.on('request', (request) => started.set(request, Date.now()));
  page.on('requestfinished', async (request) => {
    const status = (await request.response().catch(() => null))?.status() ?? '?';
    const ms = Date.now() - (started.get(request) ?? Date.now());
    record(`${request.method()} ${path(request.url())} ${status} ${ms} ms`);
  });
  page.on('requestfailed', (request) => {
    record(`${request.method()} ${path(request.url())} failed: ${request.failure()?.errorText}`);
  });
  page.on('console', (message) => {
    // Chromium logs every 4xx answer to fetch; the console shows those to the user itself.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      errors.push(message.text());
    }
  });
  await page.goto(url);
  return { page, errors, network, close: () => context.close() };
}

// Screenshots for the README: written to docs/console when UPDATE_SCREENSHOTS=1 (npm run
// screenshots), otherwise to a temporary folder, so a test run never changes the working tree.
const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? join(import.meta.dirname, '../../../docs/console')
    : join(tmpdir(), 'console-screenshots');

/** At most this tall, so a long page stays a readable picture in the README. */
const MAX_HEIGHT = 1400;

/** Saves what the page shows now as `<name>.png`, focus rings and caret hidden. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const { width, height } = await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    return { width: document.documentElement.scrollWidth, height: document.body.scrollHeight };
  });
  await page.screenshot({
    path: join(SCREENSHOTS, `${name}.png`),
    fullPage: true,
    caret: 'hide',
    clip: { x: 0, y: 0, width, height: Math.min(height, MAX_HEIGHT) },
  });
}
