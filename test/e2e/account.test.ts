import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN_PASSWORD, login } from '#test/helpers/app.js';
import { openTab, signIn } from './admin-page.js';
import { describeInBrowser, expectCount, screenshot, useBrowserTest } from './browser.js';

describeInBrowser("admin interface: the admin's own account", () => {
  const ctx = useBrowserTest();
  let page: Page;

  beforeAll(async () => {
    page = await ctx.browser.newPage();
    await signIn(page, ctx.base);
  });

  it('lists the signed-in devices and signs another one out', async () => {
    const other = await login(ctx.t.app, 'admin', ADMIN_PASSWORD);
    await openTab(page, 'My account');
    const devices = page.getByRole('list', { name: 'Signed-in devices' });
    await expectCount(devices.locator('li'), 2);
    await devices.locator('li', { hasText: 'this device' }).waitFor();
    const others = devices.locator('li', { hasNotText: 'this device' });
    await others.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('The device has been signed out.').waitFor();
    await expectCount(devices.locator('li'), 1);
    const me = await ctx.t.app.inject({ url: '/api/auth/sessions', headers: other.headers });
    expect(me.statusCode).toBe(401);
  });

  it('changes the own password: says so, stays signed in, other devices are signed out', async () => {
    const other = await login(ctx.t.app, 'admin', ADMIN_PASSWORD);
    await page.getByLabel('Current password').fill('not-the-password');
    await page.getByLabel('New password', { exact: true }).fill('a-new-admin-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Current password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. Your other devices have been signed out.').waitFor();
    await expectCount(page.getByRole('alert'), 0);
    // this tab keeps working with its fresh tokens
    await openTab(page, 'Users');
    await page.locator('li.user').first().waitFor();
    await expectCount(page.getByText('Your session has expired'), 0);
    const stale = await ctx.t.app.inject({ url: '/api/auth/sessions', headers: other.headers });
    expect(stale.statusCode).toBe(401);
    await expect(login(ctx.t.app, 'admin', 'a-new-admin-password')).resolves.toMatchObject({
      username: 'admin',
    });
    await openTab(page, 'My account');
    await screenshot(page, 'admin-account-desktop');
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= innerWidth')).toBe(
      true,
    );
    await screenshot(page, 'admin-account-phone');
    expect(ctx.browser.problems).toEqual([]);
  });
});
