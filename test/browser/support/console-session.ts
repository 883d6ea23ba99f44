/**
 * The hooks of a browser test file: one Chromium for the file, and after each test the page it
 * opened and the sandbox it started, closed, whether it passed or failed. Where Chromium is
 * missing none is launched (describeInBrowser skips the tests, or fails them in CI).
 */
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { BROWSER_MISSING, type ConsolePage, launchBrowser, openConsole } from './browser.ts';
import { type ConsoleSandbox, startConsoleSandbox } from './console-sandbox.ts';

export interface ConsoleSession {
  /** startConsoleSandbox() for the running test; stopped after it. */
  startSandbox(options?: Parameters<typeof startConsoleSandbox>[0]): Promise<ConsoleSandbox>;
  /** openConsole() at `url` for the running test; its context closed after it. */
  open(url: string): Promise<ConsolePage>;
}

/** Registers the hooks; call it once, at the top of the file. */
export function useConsoleSession(): ConsoleSession {
  let browser: Browser | undefined;
  let sandbox: ConsoleSandbox | undefined;
  let tab: ConsolePage | undefined;

  beforeAll(async () => {
    if (BROWSER_MISSING === undefined) browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await tab?.close();
    tab = undefined;
    await sandbox?.stop();
    sandbox = undefined;
  });

  return {
    async startSandbox(options) {
      sandbox = await startConsoleSandbox(options);
      return sandbox;
    },
    async open(url) {
      if (browser === undefined) throw new Error('no browser: the suite runs in describeInBrowser');
      tab = await openConsole(browser, url);
      return tab;
    },
  };
}
