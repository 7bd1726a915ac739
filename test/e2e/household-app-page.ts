import {
  chromium,
  type Browser as PlaywrightBrowser,
  type BrowserContext,
  type Page,
} from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Session, TestDialect } from '#test/helpers/app.js';
import { useTestApp, type TestAppFixture } from '#test/helpers/fixtures.js';
import { ensureWebBuild } from '#test/helpers/web-build.js';
import { seedBasics, share } from '#test/inventory/helpers.js';
import { CHROMIUM } from './browser.js';

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'];

/**
 * One household member's browser for /app/: a context of its own (its own IndexedDB, service
 * worker and offline switch) in a shared Chromium, with every console error and page error
 * recorded for asserting that there were none.
 */
export interface Member {
  context: BrowserContext;
  page: Page;
  problems: string[];
}

async function launchChromium(): Promise<PlaywrightBrowser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/** What a household app suite runs against (useHouseholdApp); filled in once beforeAll has run. */
export interface HouseholdSuite {
  t: TestAppFixture;
  anna: Session;
  ben: Session;
  /** http://127.0.0.1:<port> of the listening app */
  base: string;
  browser: PlaywrightBrowser;
}

/**
 * A household app suite's set-up, in beforeAll: an app with anna and ben sharing one inventory
 * with its basics (seedBasics), then `seed` (the suite's own items, messages, files), then the
 * app listening on a loopback port and a Chromium launched; the browser closes after the block.
 */
export function useHouseholdApp(
  dialect: TestDialect,
  seed: (suite: HouseholdSuite) => Promise<void> = async () => {},
): HouseholdSuite {
  const t = useTestApp(dialect);
  const [anna, ben] = t.users('anna', 'ben');
  const suite = { t, anna, ben, base: '' } as HouseholdSuite;
  beforeAll(async () => {
    ensureWebBuild();
    await share(t.app, t.admin, anna, ben);
    await seedBasics(t.app, anna);
    await seed(suite);
    suite.base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    suite.browser = await launchChromium();
  });
  afterAll(async () => {
    await suite.browser?.close();
  });
  return suite;
}

export async function openMember(
  browser: PlaywrightBrowser,
  options: { width?: number; locale?: string } = {},
): Promise<Member> {
  const width = options.width ?? 1280;
  const context = await browser.newContext({
    locale: options.locale ?? 'en-US',
    viewport: { width, height: width < 600 ? 812 : 900 },
    acceptDownloads: true,
  });
  const problems: string[] = [];
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  return { context, page, problems };
}

/** Signs in through the form at /app/ and waits for the Stock screen. */
export async function signInToApp(
  page: Page,
  base: string,
  username: string,
  password = `${username}-password`,
): Promise<void> {
  await page.goto(`${base}/app/`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Stock', level: 1 }).waitFor();
}

/** The quantity shown on an item's row. */
function quantityOf(page: Page, itemName: string) {
  return page
    .locator('li.item', { has: page.getByText(itemName, { exact: true }) })
    .getByTestId('quantity');
}

export async function expectQuantity(page: Page, itemName: string, text: string): Promise<void> {
  await expect.poll(() => quantityOf(page, itemName).textContent(), { timeout: 10_000 }).toBe(text);
}

/** Waits until the page's service worker controls it (the shell is precached by then). */
export async function untilServiceWorkerControls(page: Page): Promise<void> {
  await page.waitForFunction(
    'navigator.serviceWorker.ready.then(() => navigator.serviceWorker.controller !== null)',
    undefined,
    { timeout: 15_000 },
  );
}
