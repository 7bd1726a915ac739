/**
 * The household app's Stock screen with 1,000 items: how long it takes to show after sign-in,
 * and the longest main-thread task while scrolling it from top to bottom, against the same
 * scroll over an empty page of the same height (the baseline, started by this script).
 *   npx tsx bench/web-app-scroll.ts            (Chromium at /usr/bin/chromium, or LARDER_TEST_CHROMIUM)
 * The longest task is read from Chromium's performance timeline (a CDP trace, `RunTask` events
 * of the page's main thread). Prints milliseconds and the ratio to the baseline; judges nothing.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { createUser, loginAsAdmin } from '#test/helpers/app.js';
import { startTestApp } from '#test/helpers/fixtures.js';
import { ensureWebBuild } from '#test/helpers/web-build.js';
import { call, wholeInventory } from '#test/inventory/helpers.js';

const ITEMS = 1_000;
const ROUNDS = 3;
const CHROMIUM = process.env.LARDER_TEST_CHROMIUM || '/usr/bin/chromium';

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  args?: { name?: string };
}

/** Scrolls the page to the bottom one screen per frame; the longest main-thread task meanwhile, ms. */
async function longestTaskWhileScrolling(browser: Browser, page: Page): Promise<number> {
  await page.evaluate('window.scrollTo(0, 0)');
  await browser.startTracing(page, {
    categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline'],
  });
  await page.evaluate(`(async () => {
    const step = Math.max(100, Math.floor(innerHeight * 0.8));
    for (let y = 0; y <= document.documentElement.scrollHeight; y += step) {
      window.scrollTo(0, y);
      await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    }
  })()`);
  const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as {
    traceEvents: TraceEvent[];
  };
  const events = trace.traceEvents;
  const main = events.find(
    (e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain',
  );
  const tasks = events.filter(
    (e) =>
      (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') &&
      e.dur !== undefined &&
      (!main || (e.pid === main.pid && e.tid === main.tid)),
  );
  return Math.max(0, ...tasks.map((e) => e.dur! / 1000));
}

ensureWebBuild();
const t = await startTestApp('sqlite');
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const admin = await loginAsAdmin(t.app);
  const member = await createUser(t.app, admin, 'bench');
  const put = await call(t.app, member, 'PUT', '/api/inventory', wholeInventory(ITEMS));
  if (put.status !== 200) throw new Error(`seeding failed: ${put.status}`);

  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto(`${base}/app/`);
  await page.getByLabel('Username').fill('bench');
  await page.getByLabel('Password').fill('bench-password');
  const started = performance.now();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page
    .getByRole('button', { name: `Use one Item ${ITEMS - 1}` })
    .waitFor({ timeout: 60_000 });
  const shown = performance.now() - started;
  const rows = await page.locator('li.item').count();
  const height = await page.evaluate<number>('document.documentElement.scrollHeight');

  const empty = await (
    await browser.newContext({ viewport: { width: 390, height: 844 } })
  ).newPage();
  await empty.setContent(
    `<!doctype html><body style="margin:0"><div style="height:${height}px"></div>`,
  );

  const app: number[] = [];
  const baseline: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    baseline.push(await longestTaskWhileScrolling(browser, empty));
    app.push(await longestTaskWhileScrolling(browser, page));
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  console.log(
    `stock screen: ${rows} rows, ${height} px tall, shown ${shown.toFixed(0)} ms after "Sign in"`,
  );
  console.log(`longest task while scrolling, median of ${ROUNDS}:`);
  console.log(`  empty page (baseline) ${median(baseline).toFixed(1)} ms`);
  console.log(
    `  stock, ${ITEMS} items    ${median(app).toFixed(1)} ms = ${(median(app) / Math.max(0.1, median(baseline))).toFixed(2)}× the baseline`,
  );
} finally {
  await browser.close();
  await t.close();
}
