import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { login } from '../helpers/app.js';
import { call, itemBody, seedBasics } from '../inventory/helpers.js';
import {
  checkTabsAtBothWidths,
  openTab,
  replaceTokens,
  signIn,
  submitLogin,
  userCard,
} from './admin-page.js';
import { describeInBrowser, screenshot, useBrowserTest } from './browser.js';

describeInBrowser('admin interface: users and inventories', () => {
  const ctx = useBrowserTest();
  let page: Page;

  beforeAll(async () => {
    page = await ctx.browser.newPage();
  });

  it('refuses a wrong password with the server message, then signs in', async () => {
    await submitLogin(page, ctx.base, 'wrong-password');
    await page.getByRole('alert').getByText('Wrong username or password').waitFor();
    await signIn(page, ctx.base);
    await page.locator('.tile dd', { hasText: /^\d+$/ }).first().waitFor();
    expect(await page.locator('.tile').count()).toBeGreaterThanOrEqual(5);
  });

  it('creates users, and shows the server message for a taken name', async () => {
    for (const name of ['alice', 'bob']) {
      await page.getByLabel('Username').fill(name);
      await page.getByLabel('Password', { exact: true }).fill(`${name}-password`);
      await page.getByRole('button', { name: 'Create user' }).click();
      await userCard(page, name).waitFor();
    }
    await expect(userCard(page, 'alice').locator('dd').first().textContent()).resolves.toMatch(
      /\d{4}/,
    );
    await page.getByLabel('Username').fill('ALICE');
    await page.getByLabel('Password', { exact: true }).fill('whatever-password');
    await page.getByRole('button', { name: 'Create user' }).click();
    await expect(page.locator('.create-user [role="alert"]').textContent()).resolves.toMatch(
      /taken|exists/i,
    );
  });

  it('assigns alice to bob’s inventory and shows both in the Inventories tab', async () => {
    const bob = await login(ctx.t.app, 'bob', 'bob-password');
    await seedBasics(ctx.t.app, bob);
    for (const name of ['Rice', 'Beans']) {
      const res = await call(ctx.t.app, bob, 'POST', '/api/inventory/items', itemBody({ name }));
      expect(res.status).toBe(201);
    }
    const alice = userCard(page, 'alice');
    const select = alice.getByLabel('Assign to');
    const bobOption = await select.locator('option', { hasText: 'bob' }).getAttribute('value');
    await select.selectOption(bobOption!);
    await alice.getByRole('button', { name: 'Assign' }).click();
    await alice.getByText('shared by 2').waitFor();

    await openTab(page, 'Inventories');
    const shared = page.locator('li.inventory', {
      has: page.locator('.members li', { hasText: 'alice' }),
    });
    await expect(shared.locator('.members li').allTextContents()).resolves.toEqual([
      'alice',
      'bob',
    ]);
    const items = shared
      .locator('.facts dt', { hasText: 'Items' })
      .locator('xpath=following-sibling::dd[1]');
    await expect(items.textContent()).resolves.toBe('2');
    const total = page.locator('.tile', { hasText: 'Items' }).locator('dd');
    await expect(total.textContent()).resolves.toBe('2');
    await shared.getByLabel('Name').fill('Bob household');
    await shared.getByRole('button', { name: 'Rename' }).click();
    await shared.locator('h3', { hasText: 'Bob household' }).waitFor();
    await page.locator('.per-inventory summary').click();
    await page.locator('.per-inventory th', { hasText: 'Bob household' }).waitFor();
  });

  it('changes a password: the new one works, the old one does not', async () => {
    await openTab(page, 'Users');
    const alice = userCard(page, 'alice');
    await alice.getByRole('button', { name: 'Change password' }).click();
    await alice.getByLabel('New password for alice').fill('alice-new-password');
    await alice.getByRole('button', { name: 'Save password' }).click();
    await alice.getByLabel('New password for alice').waitFor({ state: 'detached' });
    await expect(login(ctx.t.app, 'alice', 'alice-new-password')).resolves.toMatchObject({
      username: 'alice',
    });
    await expect(login(ctx.t.app, 'alice', 'alice-password')).rejects.toThrow(/401/);
  });

  it('detaches alice into a new inventory and deletes bob after confirmation', async () => {
    const alice = userCard(page, 'alice');
    await alice.getByRole('button', { name: 'Detach into a new inventory' }).click();
    await alice.getByText('shared by 2').waitFor({ state: 'detached' });

    const bob = userCard(page, 'bob');
    await bob.getByRole('button', { name: 'Delete' }).click();
    await bob.getByRole('button', { name: 'Yes, delete' }).click();
    await bob.waitFor({ state: 'detached' });
    const users = await ctx.t.app.larder.users.list();
    expect(users.map((u) => u.username).sort()).toEqual(['admin', 'alice']);
  });

  it('refreshes an expired access token transparently, then asks to sign in again', async () => {
    await replaceTokens(page, { accessToken: 'expired.token.value' });
    await openTab(page, 'Inventories');
    await page.locator('li.inventory').first().waitFor();
    await expect(page.getByRole('alert').count()).resolves.toBe(0);

    const stored = await page.evaluate<string>(
      "JSON.parse(sessionStorage.getItem('larder.admin.session')).accessToken",
    );
    expect(stored).not.toBe('expired.token.value');

    await replaceTokens(page, { accessToken: 'x.y.z', refreshToken: 'gone' });
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.getByText('Your session has expired. Please sign in again.').waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('signs out, and looks right at desktop and phone widths', async () => {
    await signIn(page, ctx.base);
    await checkTabsAtBothWidths(page, ['Users', 'Inventories']);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    await screenshot(page, 'admin-login-desktop');
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    expect(ctx.browser.problems).toEqual([]);
  });

  it('the tabs can be used with the keyboard', async () => {
    await signIn(page, ctx.base);
    await page.getByRole('tab', { name: 'Users' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.locator('#panel-inventories').waitFor();
    await page.keyboard.press('End');
    await page.locator('#panel-backups').waitFor();
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('tab-backups');
  });
});
