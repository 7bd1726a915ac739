import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createUser, login, loginAsAdmin } from '#test/helpers/app.js';
import { call, itemBody, seedBasics } from '#test/inventory/helpers.js';
import {
  checkTabsAtBothWidths,
  manageUser,
  openTab,
  replaceTokens,
  signIn,
  submitLogin,
  userCard,
} from './admin-page.js';
import { describeInBrowser, expectCount, screenshot, useBrowserTest } from './browser.js';

const flash = (page: Page) => page.locator('.flash[role="status"]');

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
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('en');
  });

  it('creates users with a success message; a taken name shows the server message', async () => {
    // alice (made through the API) keeps three items in her own inventory
    const alice = await createUser(ctx.t.app, await loginAsAdmin(ctx.t.app), 'alice');
    await seedBasics(ctx.t.app, alice);
    for (const name of ['Rice', 'Beans', 'Salt']) {
      const res = await call(ctx.t.app, alice, 'POST', '/api/inventory/items', itemBody({ name }));
      expect(res.status).toBe(201);
    }
    await page.reload();
    for (const name of ['bob']) {
      await page.getByLabel('Username').fill(name);
      await page.getByLabel('Password', { exact: true }).fill(`${name}-password`);
      await page.getByRole('button', { name: 'Create user' }).click();
      await userCard(page, name).waitFor();
      await flash(page).getByText(`User ${name} created`).waitFor();
    }
    await page.getByLabel('Username').fill('ALICE');
    await page.getByLabel('Password', { exact: true }).fill('whatever-password');
    await page.getByRole('button', { name: 'Create user' }).click();
    await expect(page.locator('.create-user [role="alert"]').textContent()).resolves.toMatch(
      /taken|exists/i,
    );
  });

  it('the list searches by name', async () => {
    await page.getByLabel('Search users').fill('ali');
    await expectCount(page.locator('li.user'), 1);
    await page.getByText('(1 of 3)').waitFor();
    await page.getByLabel('Search users').fill('');
    await expectCount(page.locator('li.user'), 3);
  });

  it('warns before an assign deletes an inventory with its items, then assigns with a message', async () => {
    const row = await manageUser(page, 'alice');
    // alice is alone: no detach offered
    await expectCount(row.getByRole('button', { name: 'Detach into a new inventory' }), 0);
    const select = row.getByLabel('Assign to');
    const bobOption = await select.locator('option', { hasText: 'bob' }).getAttribute('value');
    await select.selectOption(bobOption!);
    await row.getByRole('button', { name: 'Assign' }).click();
    const question = row.getByRole('group');
    await expect(question.textContent()).resolves.toContain(
      '“Inventory of alice” will be deleted with its 3 items.',
    );
    await screenshot(page, 'admin-assign-warning-desktop');
    // the old error from the create form is still there until a change succeeds
    await page.locator('.create-user [role="alert"]').waitFor();
    await row.getByRole('button', { name: 'Yes, assign and delete' }).click();
    await flash(page).getByText('alice now belongs to Inventory of bob.').waitFor();
    await page.locator('.create-user [role="alert"]').waitFor({ state: 'detached' });
    await userCard(page, 'alice').getByText('shared by 2').waitFor();
    expect(
      (await ctx.t.app.larder.households.statsPerInventory()).map((s) => s.totalItems),
    ).not.toContain(3);
  });

  it('detach is offered to a shared user and says what happened', async () => {
    const row = await manageUser(page, 'alice');
    await row.getByRole('button', { name: 'Detach into a new inventory' }).click();
    await flash(page).getByText('alice now has a new inventory of their own.').waitFor();
    await userCard(page, 'alice').getByText('shared by 2').waitFor({ state: 'detached' });
  });

  it('changes a password with a success message: the new one works, the old one does not', async () => {
    const row = await manageUser(page, 'alice');
    await row.getByRole('button', { name: 'Change password' }).click();
    await row.getByLabel('New password for alice').fill('alice-new-password');
    await row.getByRole('button', { name: 'Save password' }).click();
    await flash(page).getByText('Password of alice changed.').waitFor();
    await expect(login(ctx.t.app, 'alice', 'alice-new-password')).resolves.toMatchObject({
      username: 'alice',
    });
    await expect(login(ctx.t.app, 'alice', 'alice-password')).rejects.toThrow(/401/);
  });

  it('grants and revokes the admin role; nobody is offered a change of their own', async () => {
    const own = await manageUser(page, 'admin');
    await expectCount(own.getByRole('button', { name: 'Make admin' }), 0);
    await expectCount(own.getByRole('button', { name: 'Revoke admin' }), 0);
    let row = await manageUser(page, 'alice');
    await row.getByRole('button', { name: 'Make admin' }).click();
    await flash(page).getByText('alice is now an admin.').waitFor();
    await userCard(page, 'alice').locator('.badge', { hasText: 'admin' }).waitFor();
    const alice = await login(ctx.t.app, 'alice', 'alice-new-password');
    const asAlice = await ctx.t.app.inject({ url: '/api/admin/users', headers: alice.headers });
    expect(asAlice.statusCode).toBe(200);
    row = await manageUser(page, 'alice');
    await row.getByRole('button', { name: 'Revoke admin' }).click();
    await expect(row.getByRole('group').textContent()).resolves.toContain(
      'alice will no longer manage users, inventories and backups.',
    );
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await flash(page).getByText('alice is no longer an admin.').waitFor();
    await userCard(page, 'alice').locator('.badge', { hasText: 'admin' }).waitFor({
      state: 'detached',
    });
    // alice's token, issued while she was an admin, lost the rights with the role
    const after = await ctx.t.app.inject({ url: '/api/admin/users', headers: alice.headers });
    expect(after.statusCode).toBe(403);
  });

  it('warns before deleting a user alone in an inventory with items', async () => {
    const bob = await login(ctx.t.app, 'bob', 'bob-password');
    await seedBasics(ctx.t.app, bob);
    const res = await call(
      ctx.t.app,
      bob,
      'POST',
      '/api/inventory/items',
      itemBody({ name: 'Tea' }),
    );
    expect(res.status).toBe(201);
    await page.reload();
    const row = await manageUser(page, 'bob');
    await row.getByRole('button', { name: 'Delete' }).click();
    await expect(row.getByRole('group').textContent()).resolves.toContain(
      'Delete bob and their messages? “Inventory of bob” will be deleted with its 1 item.',
    );
    await row.getByRole('button', { name: 'Yes, delete' }).click();
    await flash(page).getByText('User bob deleted.').waitFor();
    await userCard(page, 'bob').waitFor({ state: 'detached' });
    const users = await ctx.t.app.larder.users.list();
    expect(users.map((u) => u.username).sort()).toEqual(['admin', 'alice']);
  });

  it('the Inventories tab shows statistics, names unnamed inventories after members, renames', async () => {
    await openTab(page, 'Inventories');
    const own = page.locator('li.inventory', {
      has: page.locator('h3', { hasText: 'Inventory of alice' }),
    });
    await own.getByLabel('Name').fill('Alice household');
    await own.getByRole('button', { name: 'Rename' }).click();
    await flash(page).getByText('Inventory renamed to “Alice household”.').waitFor();
    await page.locator('li.inventory h3', { hasText: 'Alice household' }).waitFor();
    const total = page.locator('.tile', { hasText: 'Inventories' }).locator('dd');
    await expect(total.textContent()).resolves.toBe('2');
  });

  it("an inventory's card shows its readiness and its journal", async () => {
    // alice (detached above: a new inventory) puts 2 kg of rice in it
    const session = await login(ctx.t.app, 'alice', 'alice-new-password');
    await seedBasics(ctx.t.app, session);
    const rice = await call(ctx.t.app, session, 'POST', '/api/inventory/items', itemBody());
    expect(rice.status).toBe(201);
    await page.reload();
    await page.locator('#panel-inventories').waitFor();
    const own = page.locator('li.inventory', {
      has: page.locator('h3', { hasText: 'Alice household' }),
    });
    await own.getByRole('button', { name: 'Show readiness' }).click();
    const readiness = own.getByRole('region', { name: 'Readiness of Alice household' });
    // the figures the server gives (7,200 kcal), as the card words them (no water: goal missed)
    const alice = (await ctx.t.app.larder.users.list()).find((u) => u.username === 'alice')!;
    const figures = await ctx.t.app.larder.inventory.readiness.readinessOf(alice.inventoryId!);
    const kcal = figures.food.kcal.toLocaleString('en');
    await readiness.getByText(`${kcal} kcal, ${figures.food.days} days`).waitFor();
    await readiness.getByText('Goal missed').waitFor();
    await own.getByRole('button', { name: 'Show journal' }).click();
    const journal = own.getByRole('region', { name: 'Journal of Alice household' });
    await journal.locator('tbody tr').first().waitFor();
    const rows = await ctx.t.app.larder.inventory.journal.list(
      { inventoryId: alice.inventoryId! },
      { limit: 50 },
    );
    expect(rows.entries.map((e) => [e.username, e.kind, e.itemName])).toEqual([
      ['alice', 'create', 'Rice'],
    ]);
    await expectCount(journal.locator('tbody tr'), rows.entries.length);
    const newest = rows.entries[0]!;
    await journal.locator('tbody tr').first().getByText(newest.username, { exact: true }).waitFor();
    await journal.locator('tbody tr').first().getByText(newest.itemName).waitFor();
  });

  it('reload keeps the tab (it is in the URL)', async () => {
    await openTab(page, 'Backups');
    await page.getByRole('button', { name: 'Create a backup now' }).click();
    await flash(page)
      .getByText(/^Backup larder-.*\.sql\.gz written\./)
      .waitFor();
    expect(new URL(page.url()).hash).toBe('#backups');
    await page.reload();
    await page.locator('#panel-backups').waitFor();
    await expect(
      page.getByRole('tab', { name: 'Backups' }).getAttribute('aria-selected'),
    ).resolves.toBe('true');
    await page.goto(`${ctx.base}/admin/#inventories`);
    await page.locator('#panel-inventories').waitFor();
  });

  it('the Backups tab says whether each backup restores: verified, failed (with why), not verified', async () => {
    await openTab(page, 'Backups');
    const list = await ctx.t.app.inject({
      url: '/api/admin/backups',
      headers: (await loginAsAdmin(ctx.t.app)).headers,
    });
    const [made] = list.json<{ name: string }[]>();
    const row = page.locator(`li.backup[data-name="${made!.name}"]`);
    await row.getByText(/^Verified \w{3} \d+, \d{4}/).waitFor();
    await expectCount(page.locator('li.backup.verify-failed'), 0);

    // a copy put there by hand has never been checked; then the kept file is damaged
    const file = path.join(ctx.t.config.backupDir, made!.name);
    fs.copyFileSync(file, path.join(ctx.t.config.backupDir, 'by-hand.sql.gz'));
    const text = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8');
    fs.writeFileSync(file, zlib.gzipSync(text.replace(/\busers=(\d+)\b/, 'users=9$1')));
    await page.reload();
    await page
      .locator('li.backup[data-name="by-hand.sql.gz"]')
      .getByText('not verified', { exact: true })
      .waitFor();
    await row.getByText(/^Verified \w{3} \d+, \d{4}/).waitFor(); // the stored result until checked again

    await row.getByRole('button', { name: `Verify ${made!.name}` }).click();
    await flash(page).getByText(`Backup ${made!.name} failed its verification.`).waitFor();
    await expect
      .poll(() => row.locator('.verification').textContent())
      .toMatch(/^Verification failed: .*users: recorded 9\d+ rows, restored \d+/);
    await expectCount(page.locator('li.backup.verify-failed'), 1);

    await page
      .locator('li.backup[data-name="by-hand.sql.gz"]')
      .getByRole('button', { name: 'Verify by-hand.sql.gz' })
      .click();
    await flash(page)
      .getByText('Backup by-hand.sql.gz verified: it restores completely.')
      .waitFor();
    await page
      .locator('li.backup[data-name="by-hand.sql.gz"]')
      .getByText(/^Verified \w{3} \d+, \d{4}/)
      .waitFor();
    await screenshot(page, 'admin-backups-verified-desktop');
  });

  it('refreshes an expired access token transparently, then asks to sign in again', async () => {
    await replaceTokens(page, { accessToken: 'expired.token.value' });
    await openTab(page, 'Users');
    await page.locator('li.user').first().waitFor();
    await expectCount(page.getByRole('alert'), 0);
    const stored = await page.evaluate<string>(
      "JSON.parse(sessionStorage.getItem('larder.admin.session')).accessToken",
    );
    expect(stored).not.toBe('expired.token.value');

    await replaceTokens(page, { accessToken: 'x.y.z', refreshToken: 'gone' });
    await page.getByRole('tab', { name: 'Inventories' }).click();
    await page.getByText('Your session has expired. Please sign in again.').waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('signs out, and nothing scrolls sideways at desktop and phone widths', async () => {
    await signIn(page, ctx.base);
    await checkTabsAtBothWidths(page, ['Users', 'Inventories', 'Backups']);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    await screenshot(page, 'admin-login-desktop');
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    expect(ctx.browser.problems).toEqual([]);
  });

  it('the tabs can be used with the keyboard', async () => {
    await signIn(page, ctx.base);
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.getByRole('tab', { name: 'Users' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.locator('#panel-inventories').waitFor();
    await page.keyboard.press('End');
    await page.locator('#panel-account').waitFor();
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('tab-account');
  });
});
