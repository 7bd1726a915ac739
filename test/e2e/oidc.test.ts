import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_PASSWORD, type TestApp } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { oidcEnv } from '#test/helpers/oidc-fixture.js';
import { startTestProvider, type TestProvider } from '#test/helpers/oidc-provider.js';
import { ensureWebBuild } from '#test/helpers/web-build.js';
import { openTab, signIn, userCard } from './admin-page.js';
import {
  describeInBrowser,
  expectCount,
  launchBrowser,
  onPhoneIn,
  screenshot,
  type Browser,
} from './browser.js';

/** The provider's dev login form (any password), then its consent page. */
async function signInAtProvider(page: Page, accountId: string): Promise<void> {
  await page.getByPlaceholder('Enter any login').fill(accountId);
  await page.getByPlaceholder('and password').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** A provider, a Larder signing in through it on a loopback port, and Chromium, for a describe block. */
function useOidcBrowserTest(extra: Record<string, string>) {
  const ctx = {} as {
    provider: TestProvider;
    larder: { t: TestApp; base: string };
    browser: Browser;
  };
  let callback = '';
  beforeAll(async () => {
    ensureWebBuild();
    ctx.provider = await startTestProvider({ redirectUris: () => [callback] });
  });
  // hooks run as a stack: the provider closes after the app
  afterAll(() => ctx.provider?.close());
  const t = useTestApp('sqlite', {
    signInAdmin: false,
    prepare: (env) => {
      Object.assign(env, oidcEnv(ctx.provider, extra));
      delete env.LARDER_PUBLIC_URL; // the address Chromium uses
    },
  });
  beforeAll(async () => {
    ctx.larder = { t, base: await t.app.listen({ port: 0, host: '127.0.0.1' }) };
    callback = `${ctx.larder.base}/api/auth/oidc/callback`;
    ctx.browser = await launchBrowser();
  });
  afterAll(() => ctx.browser?.close());
  return ctx;
}

/**
 * Signed out at the provider, a stranger (an account there linked to nobody here) starts at
 * `/<ui>/` with the provider button and comes back refused: the page, showing why.
 */
async function refusedStranger(
  ctx: ReturnType<typeof useOidcBrowserTest>,
  ui: 'admin' | 'app',
  width?: number,
): Promise<Page> {
  await ctx.browser.context.clearCookies();
  const stranger = `stranger-in-${ui}`;
  ctx.provider.accounts.set(stranger, { preferred_username: ui === 'admin' ? 'admin' : 'anna' });
  const page = await ctx.browser.newPage(width);
  await page.goto(`${ctx.larder.base}/${ui}/`);
  await page.getByRole('link', { name: 'Sign in with Household ID' }).click();
  await signInAtProvider(page, stranger);
  await page
    .getByRole('alert')
    .getByText(/is not linked to an account here/)
    .waitFor();
  return page;
}

const fits = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth <= innerWidth');

describeInBrowser('admin interface: sign-in through the identity provider', () => {
  const ctx = useOidcBrowserTest({ LARDER_OIDC_ADMIN_GROUP: 'larder-admins' });

  it('links the account under My account, then signs in with the provider button', async () => {
    ctx.provider.accounts.set('admin-at-idp', {
      preferred_username: 'boss',
      groups: ['larder-admins'],
    });
    const page = await ctx.browser.newPage();
    let exchanges = 0;
    page.on('request', (r) => void (r.url().endsWith('/api/auth/oidc/exchange') && exchanges++));
    await signIn(page, ctx.larder.base);
    await openTab(page, 'My account');
    const section = page.getByRole('region', { name: 'Identity provider' });
    await section.getByText('Link this account to Household ID to sign in there.').waitFor();
    await section.getByRole('button', { name: 'Link' }).click();
    await signInAtProvider(page, 'admin-at-idp');
    await page.getByText('This account is now linked to Household ID.').waitFor();
    await section.getByRole('button', { name: 'Unlink' }).waitFor();
    expect(new URL(page.url()).search).toBe(''); // the result is taken out of the address

    await openTab(page, 'Users');
    await userCard(page, 'admin').locator('.badge.oidc', { hasText: 'OIDC' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in with Household ID' }).click();
    // still signed in at the provider: it sends the browser straight back
    await page.getByText('Signed in as admin').waitFor();
    expect(new URL(page.url()).search).toBe('');
    const stored = await page.evaluate<string>("sessionStorage.getItem('larder.admin.session')");
    const me = await ctx.larder.t.app.inject({
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${JSON.parse(stored).accessToken}` },
    });
    expect(me.json()).toMatchObject({ username: 'admin', oidcLinked: true });
    // signing out shows the sign-in page as before: the spent code is not tried again (an
    // exchange would start when the page mounts, before the provider button can show)
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    await page.getByRole('link', { name: 'Sign in with Household ID' }).waitFor();
    expect(exchanges).toBe(1);
    await expectCount(page.getByRole('alert'), 0);
    expect(ctx.browser.problems).toEqual([]);
    await page.close();
  });

  it('explains a refusal: an unknown provider account is not linked', async () => {
    const page = await refusedStranger(ctx, 'admin');
    await expectCount(page.getByText('Signed in as'), 0);
    await page.close();
  });

  it('shows the provider button beside the password form at 1280 and 375 px', async () => {
    const page = await ctx.browser.newPage();
    await page.goto(`${ctx.larder.base}/admin/`);
    await page.getByRole('link', { name: 'Sign in with Household ID' }).waitFor();
    await page.getByText('or with a password').waitFor();
    await page.getByLabel('Username').waitFor();
    expect(await fits(page)).toBe(true);
    await screenshot(page, 'admin-login-oidc-desktop');
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await fits(page)).toBe(true);
    await screenshot(page, 'admin-login-oidc-phone');
    await page.close();
  });

  it('in German: „Mit Household ID anmelden“ and „Verknüpfen“', async () => {
    await onPhoneIn('de-DE', `${ctx.larder.base}/admin/`, async (page) => {
      await page.getByRole('link', { name: 'Mit Household ID anmelden' }).waitFor();
      await page.getByText('oder mit Passwort').waitFor();
      await page.getByLabel('Benutzername').fill('admin');
      await page.getByLabel('Passwort').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
      await page.getByRole('tab', { name: 'Mein Konto' }).click();
      await page
        .getByRole('region', { name: 'Identitätsanbieter' })
        .getByRole('button', { name: 'Verknüpfung lösen' })
        .waitFor();
      expect(await fits(page)).toBe(true);
      await screenshot(page, 'admin-account-oidc-de-phone');
    });
  });
});

describeInBrowser('admin interface: password sign-in turned off', () => {
  const ctx = useOidcBrowserTest({ LARDER_PASSWORD_SIGN_IN: 'off' });

  it('shows only the provider button, at 1280 and 375 px', async () => {
    for (const width of [1280, 375]) {
      const page = await ctx.browser.newPage(width);
      await page.goto(`${ctx.larder.base}/admin/`);
      await page.getByRole('link', { name: 'Sign in with Household ID' }).waitFor();
      await expectCount(page.getByLabel('Password'), 0);
      await expectCount(page.getByText('or with a password'), 0);
      expect(await fits(page)).toBe(true);
      await screenshot(page, `admin-login-oidc-only-${width}`);
      await page.close();
    }
  });
});

describeInBrowser('household app: the identity provider’s refusals', () => {
  const ctx = useOidcBrowserTest({});

  it('explains a refusal from the round trip: an unknown provider account is not linked', async () => {
    const page = await refusedStranger(ctx, 'app', 375);
    expect(new URL(page.url()).pathname).toBe('/app/');
    expect(new URL(page.url()).search).toBe(''); // taken out of the address
    await page.close();
  });

  it('says an identity already linked to another user is, as the admin interface does', async () => {
    for (const ui of ['app', 'admin']) {
      const page = await ctx.browser.newPage(375);
      await page.goto(`${ctx.larder.base}/${ui}/?oidc_error=already_linked`);
      await page
        .getByRole('alert')
        .getByText('That account at the identity provider is already linked to another user.')
        .waitFor();
      expect(new URL(page.url()).search).toBe('');
      await page.close();
    }
    expect(ctx.browser.problems).toEqual([]);
  });
});
