import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { TestApp } from '#test/helpers/app.js';
import { startTestApp } from '#test/helpers/fixtures.js';
import { ensureWebBuild } from '#test/helpers/web-build.js';

/** Debian's Chromium unless LARDER_TEST_CHROMIUM names another binary. */
export const CHROMIUM = process.env.LARDER_TEST_CHROMIUM || '/usr/bin/chromium';
const HAS_CHROMIUM = fs.existsSync(CHROMIUM);

/** A block of browser tests: skipped, with the reason in its name, when Chromium is missing. */
export function describeInBrowser(name: string, body: () => void): void {
  const title = HAS_CHROMIUM
    ? name
    : `${name} (needs Chromium at ${CHROMIUM}: apt-get install chromium, or set LARDER_TEST_CHROMIUM)`;
  describe.skipIf(!HAS_CHROMIUM)(title, body);
}
const SCREENSHOTS = path.resolve('test-output', 'screenshots');

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export interface Browser {
  context: BrowserContext;
  /** Content-Security-Policy violations and page errors seen so far, for asserting there were none. */
  problems: string[];
  newPage(width?: number): Promise<Page>;
  close(): Promise<void>;
}

/** Debian's Chromium, headless, with a fresh profile in a temp dir (removed on close). */
export async function launchBrowser(options: { locale?: string } = {}): Promise<Browser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    // navigator.language and Accept-Language
    locale: options.locale ?? 'en-US',
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text())) {
        problems.push(msg.text());
      }
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  return {
    context,
    problems,
    async newPage(width = 1280) {
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await page.setViewportSize({ width, height: width < 600 ? 812 : 900 });
      return page;
    },
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * `body` on a phone-sized page (375 px) opened at `url` in a browser of its own whose language
 * is `locale` (navigator.language and Accept-Language); the browser is closed whatever happens.
 */
export async function onPhoneIn(
  locale: string,
  url: string,
  body: (page: Page) => Promise<void>,
): Promise<void> {
  const browser = await launchBrowser({ locale });
  try {
    const page = await browser.newPage(375);
    await page.goto(url);
    await body(page);
  } finally {
    await browser.close();
  }
}

/** Saves a full-page screenshot under test-output/screenshots/. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

export interface BrowserTestContext {
  t: TestApp;
  browser: Browser;
  /** http://127.0.0.1:<port> of the listening app */
  base: string;
  close(): Promise<void>;
}

/**
 * What every browser suite starts from: the web build, a fresh app listening on a random port
 * (SQLite), and a headless Chromium; `close()` undoes all three.
 */
async function startBrowserTest(): Promise<BrowserTestContext> {
  ensureWebBuild();
  const t = await startTestApp('sqlite');
  let base: string;
  let browser: Browser;
  try {
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  } catch (err) {
    await t.close();
    throw err;
  }
  return {
    t,
    browser,
    base,
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

/**
 * startBrowserTest() for a describe block: started in beforeAll, closed in afterAll. The object is
 * filled in when beforeAll has run: read it in hooks and tests.
 */
export function useBrowserTest(): BrowserTestContext {
  const ctx = {} as BrowserTestContext;
  beforeAll(async () => {
    Object.assign(ctx, await startBrowserTest());
  });
  afterAll(async () => {
    if (ctx.close) await ctx.close();
  });
  return ctx;
}

/**
 * Waits until `locator` matches exactly `n` elements. The pages render after their fetches
 * answer, so a count read at once can see the list before it fills.
 */
export async function expectCount(locator: Locator, n: number): Promise<void> {
  await expect.poll(() => locator.count(), { timeout: 10_000 }).toBe(n);
}
