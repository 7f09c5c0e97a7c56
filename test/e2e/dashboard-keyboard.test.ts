/**
 * The dashboard with the keyboard alone, and what a screen reader is told, in headless Chromium
 * (Debian's `chromium`, driven by playwright-core). Signs in without the mouse, follows the skip
 * link, reaches every page from the navigation with Tab and Enter (focus lands on the page's
 * content each time), creates a sub-account by typing and pressing Enter, and checks on every page
 * that each control, link and table has a name a screen reader can announce. The page's markup
 * does not depend on the store, so this runs on SQLite only; dashboard-browser.test.ts covers both.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestApi, type TestApi } from '../support/api.js';
import { startDashboardServer, type DashboardServer } from '../support/dashboard-server.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const POLL = { timeout: 10_000 };
/** The navigation of an account session, in order, ending back at the overview where sign-in lands. */
const PAGES = [
  'Activity',
  'Sub-accounts',
  'Domains',
  'Suppressions',
  'IPs and pools',
  'Shaping',
  'Alerts',
  'Incidents',
  'Webhooks',
  'Sandbox inbox',
  'Overview',
];

/**
 * What has focus, as a screen reader would name it: the element's tag, id and text. (A string for
 * `evaluate`: the test's own TypeScript has no DOM types.)
 */
const FOCUSED = `(() => { const e = document.activeElement; return e ? e.tagName.toLowerCase() + '#' + e.id + ':' + (e.textContent || '').trim().slice(0, 60) : ''; })()`;

/**
 * Every control, link and table a screen reader is shown without an accessible name: a label (for, or
 * wrapping), `aria-label`, `aria-labelledby`, a `title`, its own text (buttons, links), or for a
 * table a caption. Each entry says which element it is.
 */
const UNNAMED = `(() => {
  // What a screen reader is shown: laid out, and not inside a subtree hidden from it (the chart's
  // canvas and legend are, as its figures are also a table).
  const visible = (e) => e.getClientRects().length > 0 && !e.closest('[aria-hidden="true"]');
  const byIds = (e) => (e.getAttribute('aria-labelledby') || '').split(/\\s+/).map((id) => document.getElementById(id)?.textContent || '').join('').trim();
  const named = (e) =>
    (e.getAttribute('aria-label') || '').trim() || byIds(e) || (e.title || '').trim() ||
    [...(e.labels || [])].map((l) => l.textContent).join('').trim() ||
    (['BUTTON', 'A'].includes(e.tagName) ? (e.textContent || '').trim() : '') ||
    (e.tagName === 'TABLE' ? (e.querySelector('caption')?.textContent || '').trim() : '');
  return [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a[href], table')]
    .filter((e) => visible(e) && !named(e))
    .map((e) => e.outerHTML.slice(0, 120));
})()`;

async function press(page: Page, key: string): Promise<string> {
  await page.keyboard.press(key);
  return page.evaluate<string>(FOCUSED);
}

/** Presses `key` until the focused element's text is `text` (at most 40 times); fails if it never is. */
async function tabTo(page: Page, text: string, key = 'Tab'): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < 40; i++) {
    const focused = await press(page, key);
    if (focused.endsWith(`:${text}`)) return;
    seen.push(focused);
  }
  throw new Error(`"${text}" was never focused by ${key}; focus went through ${seen.join(' | ')}`);
}

let browser: Browser | undefined;
let api: TestApi | undefined;
let server: DashboardServer | undefined;
beforeAll(async () => {
  if (!haveChromium) return;
  mkdirSync('test-results', { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await api?.mailplane.close();
  await api?.close();
});

describe.skipIf(!haveChromium)(
  `dashboard with the keyboard and a screen reader's view (sqlite)${haveChromium ? '' : ` (skipped: no ${CHROMIUM})`}`,
  () => {
    it('signs in, reaches every page and submits a form without the mouse, and names every control', async () => {
      api = await createTestApi('sqlite');
      server = await startDashboardServer(api);
      const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      try {
        await page.goto(`${server.origin}/dashboard`);
        await page.getByLabel('Account or sub-account API key').waitFor(POLL);
        expect(await page.evaluate<string[]>(UNNAMED)).toEqual([]);
        // Sign in: Tab to the key field, type it, Enter.
        await tabTo(page, '');
        expect(await page.evaluate<string>(FOCUSED)).toBe('input#api-key:');
        await page.keyboard.type(api.accountKey);
        await page.keyboard.press('Enter');
        await page.getByRole('navigation', { name: 'Dashboard' }).waitFor(POLL);

        // Signed in, focus is on the page's content, where a screen reader starts reading.
        await expect.poll(() => page.evaluate<string>(FOCUSED), POLL).toMatch(/^main#main:/);
        // The skip link comes first of all (before the navigation), and following it returns to the content.
        await tabTo(page, 'Skip to content', 'Shift+Tab');
        expect(await press(page, 'Shift+Tab')).toMatch(/^body#:/);
        await tabTo(page, 'Skip to content');
        expect(await press(page, 'Enter')).toMatch(/^main#main:/);

        for (const name of PAGES) {
          // From the content, back through Sign out to the page's link in the navigation; Enter opens it.
          await tabTo(page, name, 'Shift+Tab');
          await page.keyboard.press('Enter');
          await expect
            .poll(() => page.getByRole('link', { name, exact: true }).getAttribute('aria-current'), POLL)
            .toBe('page');
          await expect.poll(() => page.getByText('Loading…').count(), POLL).toBe(0);
          // Focus moved to the new page's content, where a screen reader starts reading.
          await expect.poll(() => page.evaluate<string>(FOCUSED), POLL).toMatch(/^main#main:/);
          expect(await page.getByRole('heading', { level: 1 }).count(), name).toBeGreaterThanOrEqual(1);
          expect(await page.evaluate<string[]>(UNNAMED), name).toEqual([]);
          if (name === 'Sub-accounts') {
            // A form is filled and sent with the keyboard: Tab to its field, type, Enter.
            await tabTo(page, '');
            await page.keyboard.type('Keyboard Co');
            await page.keyboard.press('Enter');
            await expect.poll(() => page.getByTestId('new-api-key').count(), POLL).toBe(1);
            await expect.poll(() => page.getByRole('cell', { name: 'Keyboard Co', exact: true }).count(), POLL).toBe(1);
            expect(await page.evaluate<string[]>(UNNAMED), name).toEqual([]);
            // back to the content, from where the next page's link is reached
            await page.evaluate(`document.getElementById('main').focus()`);
          }
        }
        // The link of the page already shown (Overview, the last one opened) also moves focus to its content.
        await tabTo(page, 'Overview', 'Shift+Tab');
        expect(await press(page, 'Enter')).toMatch(/^main#main:/);
        await page.screenshot({ path: 'test-results/dashboard-keyboard-last-page.png', fullPage: true });
      } finally {
        await context.close();
      }
    }, 60_000);
  },
);
