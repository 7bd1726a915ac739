import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { ADMIN_PASSWORD } from '#test/helpers/app.js';
import { screenshot } from './browser.js';

/** Signs in through the form at /admin/ and waits for the administration to show. */
export async function signIn(page: Page, base: string): Promise<void> {
  await submitLogin(page, base, ADMIN_PASSWORD);
  await page.getByText('Signed in as').waitFor();
}

/** Fills and sends the sign-in form without waiting for the outcome. */
export async function submitLogin(page: Page, base: string, password: string): Promise<void> {
  await page.goto(`${base}/admin/`);
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export async function openTab(page: Page, name: string): Promise<void> {
  const tab = page.getByRole('tab', { name });
  await tab.click();
  const id = await tab.getAttribute('id');
  await page.locator(`[role="tabpanel"][aria-labelledby="${id}"]`).waitFor();
}

export const userCard = (page: Page, username: string) =>
  page.locator(`li.user[data-username="${username}"]`);

/** Opens a user's actions (the list shows one line per user) and returns the row. */
export async function manageUser(page: Page, username: string) {
  const row = userCard(page, username);
  const toggle = row.getByRole('button', { name: `Manage ${username}` });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  return row;
}

/** True when nothing on the page is wider than the viewport (no sideways scrolling). */
export async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');
}

/**
 * Opens each tab at desktop and at phone width: nothing may scroll sideways, and a screenshot of
 * each goes to test-output/screenshots/. Leaves the page at desktop width.
 */
export async function checkTabsAtBothWidths(page: Page, tabs: string[]): Promise<void> {
  for (const [label, width] of [
    ['desktop', 1280],
    ['phone', 375],
  ] as const) {
    await page.setViewportSize({ width, height: width < 600 ? 812 : 900 });
    for (const tab of tabs) {
      await openTab(page, tab);
      await page.locator('.cards > li, .rows > li').first().waitFor();
      expect(await fitsWidth(page)).toBe(true);
      await screenshot(page, `admin-${tab.toLowerCase()}-${label}`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Overwrites tokens in the admin's sessionStorage, as if they had expired or been revoked. */
export async function replaceTokens(
  page: Page,
  tokens: { accessToken?: string; refreshToken?: string },
): Promise<void> {
  await page.evaluate(
    `(() => {
      const key = 'larder.admin.session';
      const session = JSON.parse(sessionStorage.getItem(key));
      sessionStorage.setItem(key, JSON.stringify({ ...session, ...${JSON.stringify(tokens)} }));
    })()`,
  );
}
