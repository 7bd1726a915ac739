import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { loginAsAdmin } from '#test/helpers/app.js';
import { checkTabsAtBothWidths, openTab, signIn } from './admin-page.js';
import { describeInBrowser, expectCount, screenshot, useBrowserTest } from './browser.js';

const PDF = path.resolve('test/fixtures/resources/water-guide.pdf');

describeInBrowser('admin interface: resources and backups', () => {
  const ctx = useBrowserTest();
  let page: Page;
  /** Chooses `files` in the analyze field and starts the analysis. */
  const analyzeFiles = async (files: string | string[]) => {
    await page.getByLabel('Files to analyze').setInputFiles(files);
    await page.getByRole('button', { name: 'Analyze', exact: true }).click();
  };

  beforeAll(async () => {
    page = await ctx.browser.newPage();
    await signIn(page, ctx.base);
    await openTab(page, 'Resources');
  });

  it('analyzes a PDF, shows its metadata for review, and lists it once confirmed', async () => {
    await analyzeFiles(PDF);
    const review = page.getByRole('form', { name: 'Review water-guide.pdf' });
    await review.waitFor();
    await expect(review.getByLabel('Title').inputValue()).resolves.toBe('Storing Drinking Water');
    await expect(review.getByLabel('Author').inputValue()).resolves.toBe('Jane Doe');
    await expect(review.getByLabel('Language').inputValue()).resolves.toBe('en');

    await review.getByLabel('Tags', { exact: true }).fill('emergency');
    await review.getByLabel('Tags', { exact: true }).press('Enter');
    await review
      .getByLabel('Description (Markdown)')
      .fill(
        'Keep **three litres** a day.\n\n<img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>\n\n- rotate every *six* months',
      );
    const preview = review.getByLabel('Description preview');
    await expect(preview.locator('strong').textContent()).resolves.toBe('three litres');
    await expect(preview.locator('li em').textContent()).resolves.toBe('six');
    await expectCount(preview.locator('img, script'), 0);
    await expect(preview.textContent()).resolves.toContain('<script>window.pwned=2</script>');
    await screenshot(page, 'admin-resources-review-desktop');

    await review.getByRole('button', { name: 'Add to catalog' }).click();
    await review.waitFor({ state: 'detached' });
    const card = page.locator('li.resource', { hasText: 'Storing Drinking Water' });
    await card.waitFor();
    await expect(card.locator('.chips').textContent()).resolves.toContain('emergency');
    expect(await page.evaluate<unknown>('window.pwned')).toBeUndefined();
  });

  it('downloads the confirmed file through ?token= with the original bytes', async () => {
    const card = page.locator('li.resource', { hasText: 'Storing Drinking Water' });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      card.getByRole('button', { name: 'Download Storing Drinking Water' }).click(),
    ]);
    expect(download.url()).toMatch(/\/api\/resources\/[^/]+\/download\?token=/);
    const saved = await download.path();
    expect(fs.readFileSync(saved).equals(fs.readFileSync(PDF))).toBe(true);
  });

  it('filters by search text and by tag', async () => {
    const cards = page.locator('li.resource');
    await page.getByLabel('Search').fill('nothing like this');
    await page.getByText('Nothing matches.').waitFor();
    await page.getByLabel('Search').fill('drinking');
    await cards.first().waitFor();
    await expectCount(cards, 1);
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Tag', { exact: true }).selectOption('emergency');
    await cards.first().waitFor();
    await expectCount(cards, 1);
    await page.getByLabel('Tag', { exact: true }).selectOption('');
  });

  it('uploads a file manually with typed metadata, showing progress, then deletes it', async () => {
    await page.getByLabel('Manual upload').check();
    const form = page.getByRole('form', { name: 'Manual upload' });
    await form.getByLabel('File', { exact: true }).setInputFiles(PDF);
    await form.getByLabel('Title').fill('Second copy');
    await form.getByLabel('Release date').fill('2024-02-29');
    await form.getByRole('button', { name: 'Upload' }).click();
    await form.getByText('“Second copy” was uploaded.').waitFor();
    const card = page.locator('li.resource', { hasText: 'Second copy' });
    await card.waitFor();
    await expect(card.textContent()).resolves.toContain('2024-02-29');
    await screenshot(page, 'admin-resources-desktop');

    await card.getByRole('button', { name: 'Delete' }).click();
    await card.getByRole('button', { name: 'Yes, delete' }).click();
    await card.waitFor({ state: 'detached' });
    const admin = await loginAsAdmin(ctx.t.app);
    const list = await ctx.t.app.inject({ url: '/api/resources', headers: admin.headers });
    expect(list.json().map((r: { title: string }) => r.title)).toEqual(['Storing Drinking Water']);
  });

  it('a file name analyzed again replaces its older review form (the server keeps only the newer file)', async () => {
    await page.getByLabel('Analyze files').check();
    await page
      .getByLabel('Files to analyze')
      .setInputFiles([
        path.resolve('test/fixtures/resources/library.zip'),
        path.resolve('test/fixtures/resources/library.7z'),
      ]);
    await page.getByRole('button', { name: 'Analyze', exact: true }).click();
    await page.getByRole('form', { name: 'Review water-filter.jpg' }).waitFor();
    await page.getByRole('button', { name: 'Analyze', exact: true }).waitFor(); // not "Analyzing…"
    await expectCount(page.getByRole('form', { name: /^Review / }), 3);
    await expectCount(page.getByRole('form', { name: 'Review water-guide.pdf' }), 1);
    for (const name of ['water-filter.jpg', 'water-guide.pdf', 'pantry-recipes.epub']) {
      await page
        .getByRole('form', { name: `Review ${name}` })
        .getByRole('button', { name: 'Discard' })
        .click();
    }
    await expectCount(page.getByRole('form', { name: /^Review / }), 0);
  });

  it("shows the analysis notes with a file's review, e.g. the archive entries that were skipped", async () => {
    await analyzeFiles(path.resolve('test/fixtures/resources/with-broken.zip'));
    const review = page.getByRole('form', { name: 'Review water-guide.pdf' });
    await review.waitFor();
    const notes = await review.locator('.notice').allTextContents();
    expect(notes).toContainEqual(expect.stringMatching(/skipped broken\.pdf, not a readable PDF/));
    await review.getByRole('button', { name: 'Discard' }).click();
    await review.waitFor({ state: 'detached' });
  });

  it('adds every file an archive held in one step, each form naming the archive', async () => {
    await analyzeFiles(path.resolve('test/fixtures/resources/library.zip'));
    const epub = page.getByRole('form', { name: 'Review pantry-recipes.epub' });
    await epub.waitFor();
    await epub.getByText('Found in the archive library.zip').waitFor();
    await expectCount(page.getByRole('form', { name: /^Review / }), 3);
    await page.getByRole('button', { name: 'Add all 3 files to the catalog' }).click();
    await page.getByText('3 files were added to the catalog.').waitFor();
    await expectCount(page.getByRole('form', { name: /^Review / }), 0);
    // the catalog count while searching says what it is
    await page.getByLabel('Search', { exact: true }).fill('pantry');
    await page.getByText('(1 found)').waitFor();
    await page.getByLabel('Search', { exact: true }).fill('');
  });

  it('edits a resource in place', async () => {
    const found = page.locator('li.resource', { has: page.locator('h3', { hasText: /recipe/i }) });
    const guid = await found.getAttribute('data-guid');
    await found.getByRole('button', { name: /^Edit / }).click();
    const card = page.locator(`li.resource[data-guid="${guid}"]`);
    const form = card.getByRole('form');
    await form.getByLabel('Title').fill('Pantry recipes (2nd ed.)');
    await form.getByLabel('Edition').fill('2');
    await form.getByRole('button', { name: 'Save' }).click();
    const edited = page.locator('li.resource', {
      has: page.locator('h3', { hasText: 'Pantry recipes (2nd ed.)' }),
    });
    await edited.getByText('Changes saved.').waitFor();
    const admin = await loginAsAdmin(ctx.t.app);
    const list = await ctx.t.app.inject({ url: '/api/resources', headers: admin.headers });
    expect(list.json().map((r: { title: string }) => r.title)).toContain(
      'Pantry recipes (2nd ed.)',
    );
  });

  it('refuses a file over 25 MB before sending it', async () => {
    const big = path.join(ctx.t.config.dataDir, 'big.pdf');
    fs.writeFileSync(big, Buffer.alloc(26 * 1024 * 1024));
    let sent = false;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/admin/resources/analyze')) sent = true;
    });
    await analyzeFiles(big);
    await page
      .getByRole('alert')
      .getByText(/big\.pdf is 26 MB: larger than the 25 MB limit/)
      .waitFor();
    expect(sent).toBe(false);
  });

  it('creates a backup, lists it with size and date, and downloads it', async () => {
    await openTab(page, 'Backups');
    await page.getByText('No backups yet.').waitFor();
    await page.getByRole('button', { name: 'Create a backup now' }).click();
    const entry = page.locator('li.backup').first();
    await entry.waitFor();
    const name = (await entry.locator('.name').textContent())!;
    expect(name).toMatch(/^larder-\d{8}-\d{6}\.sql\.gz$/);
    await expect(entry.textContent()).resolves.toMatch(/\d{4}.*·\s*[\d.]+ (B|KB|MB)/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      entry.getByRole('button', { name: `Download ${name}` }).click(),
    ]);
    const sql = zlib.gunzipSync(fs.readFileSync(await download.path())).toString('utf8');
    expect(sql).toContain('Storing Drinking Water');
  });

  it('shows where backups go and how they are kept, and deletes one after asking', async () => {
    await page.getByText(ctx.t.config.backupDir, { exact: true }).waitFor();
    await page.getByText('no scheduled backups').waitFor(); // the tests turn the schedule off
    await page.getByText('Resource files (data/resources/)', { exact: false }).waitFor();
    await page.getByText('How to restore').click();
    await page.getByText('npx larder restore', { exact: false }).waitFor();
    const entry = page.locator('li.backup').first();
    const name = (await entry.locator('.name').textContent())!;
    await entry.getByRole('button', { name: 'Delete' }).click();
    await entry.getByText(`Delete the backup ${name}? It cannot be undone.`).waitFor();
    await entry.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText(`Backup ${name} deleted.`).waitFor();
    await page.getByText('No backups yet.').waitFor();
    expect(fs.existsSync(path.join(ctx.t.config.backupDir, name))).toBe(false);
    await page.getByRole('button', { name: 'Create a backup now' }).click();
    await page.locator('li.backup').first().waitFor();
  });

  it('looks right at desktop and phone widths', async () => {
    await checkTabsAtBothWidths(page, ['Resources', 'Backups']);
    expect(ctx.browser.problems).toEqual([]);
  });
});
