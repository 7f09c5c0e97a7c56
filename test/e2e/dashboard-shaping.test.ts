/**
 * The dashboard's Shaping page (docs/shaping.md) in headless Chromium (Debian's `chromium`, driven by
 * playwright-core): an account that has sent nothing is told what shaping is; a rule is added and
 * saved; a bad rule gets the API's refusal beside the form with what was typed kept; a source the
 * store suspended shows by its IP's address, until when (in the viewer's locale) and why (the reply
 * folded, the whole of it one click away), and is resumed after a confirmation. A sub-account
 * session has no such page. The page's markup does not depend on the store: SQLite only (the API on
 * both: test/integration/shaping-api.test.ts).
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { contextOf } from '../../src/instance-context.js';
import { createSubAccount, createTestApi, type TestApi } from '../support/api.js';
import {
  BROWSER_POLL as POLL,
  chromiumSkipNote,
  haveChromium,
  launchChromium,
  openDashboardPage,
  signInToDashboard,
  watchPageProblems,
} from '../support/chromium.js';
import { startDashboardServer, type DashboardServer } from '../support/dashboard-server.js';

const ADDRESS = '203.0.113.7';
/** Gmail's block of a low-reputation IP, longer than a table cell shows. */
const REPLY =
  '550-5.7.1 [203.0.113.7] Our system has detected that this message is likely suspicious due to the very low reputation of the sending IP address. To best protect our users from spam, the message has been blocked.';

let browser: Browser | undefined;
let api: TestApi | undefined;
let server: DashboardServer | undefined;
beforeAll(async () => {
  if (!haveChromium) return;
  mkdirSync('test-results', { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await api?.mailplane.close();
  await api?.close();
});

/** The field `label` of the form's rule `n` (counted from 1, as its legend). */
const ruleField = (page: Page, n: number, label: string) =>
  page.getByRole('group', { name: `Rule ${n}`, exact: true }).getByLabel(label, { exact: true });

describe.skipIf(!haveChromium)(`the dashboard's Shaping page (sqlite)${chromiumSkipNote}`, () => {
  it('explains an empty state, saves a rule, keeps a refused one, shows a suspension and resumes it', async () => {
    api = await createTestApi('sqlite');
    server = await startDashboardServer(api);
    const account = { account: api.accountKey };
    const allocated = await api.call('PUT', '/account/ip/allocate', {
      ...account,
      body: { ips: [ADDRESS], autoWarmupEnabled: false },
    });
    expect(allocated.status, allocated.text).toBe(200);
    const sub = await createSubAccount(api, 'Shop');

    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    try {
      await signInToDashboard(page, server.origin, api.accountKey);
      await openDashboardPage(page, 'Shaping');
      await page.getByRole('heading', { name: 'Traffic shaping', level: 1 }).waitFor(POLL);
      await page.getByText('Nothing is being shaped yet.').waitFor(POLL);
      expect(await page.getByRole('status').filter({ hasText: 'A row appears here once mail flows' }).count()).toBe(1);
      // The defaults are shown read-only; the account has no rules of its own yet.
      const defaults = page.getByRole('table', { name: /^Default rules/ });
      await expect.poll(() => defaults.getByRole('row').filter({ hasText: 'provider:gmail' }).count(), POLL).toBe(1);
      expect(await defaults.locator('input').count()).toBe(0);
      await page.getByText('No rules of your own').waitFor(POLL);

      // Add a rule and save it: the API has it.
      await page.getByRole('button', { name: 'Add a rule' }).click();
      await ruleField(page, 1, 'Destination').fill('provider:Gmail');
      await ruleField(page, 1, 'Source').fill(`ip:${ADDRESS}`);
      await ruleField(page, 1, 'Per minute').fill('120');
      await ruleField(page, 1, 'Connections').fill('2');
      await page.getByRole('button', { name: 'Save rules' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved 1 rule.' }).waitFor(POLL);
      const stored = [
        { destination: 'provider:gmail', source: `ip:${ADDRESS}`, messagesPerMinute: 120, maxConnections: 2 },
      ];
      expect((await api.call('GET', '/account/shaping/rule', account)).body.rules).toEqual(stored);
      // The form shows the rule as stored (the provider in lower case).
      expect(await ruleField(page, 1, 'Destination').inputValue()).toBe('provider:gmail');

      // A second rule naming no known provider: refused beside the form, nothing typed is lost.
      await page.getByRole('button', { name: 'Add a rule' }).click();
      await ruleField(page, 2, 'Destination').fill('provider:hotmale');
      await ruleField(page, 2, 'Per hour').fill('500');
      await page.getByRole('button', { name: 'Save rules' }).click();
      const alert = page.getByRole('alert');
      await expect.poll(() => alert.textContent(), POLL).toMatch(/^Rule 2: unknown provider "hotmale"/);
      expect(await ruleField(page, 2, 'Destination').inputValue()).toBe('provider:hotmale');
      expect(await ruleField(page, 2, 'Per hour').inputValue()).toBe('500');
      expect(await ruleField(page, 1, 'Per minute').inputValue()).toBe('120');
      expect(await page.getByRole('group', { name: 'Rule 2', exact: true }).getAttribute('class')).toContain('invalid');
      expect((await api.call('GET', '/account/shaping/rule', account)).body.rules).toEqual(stored);
      // Removed from the form, the table saves again.
      await page.getByRole('button', { name: 'Remove rule 2' }).click();
      await page.getByRole('button', { name: 'Save rules' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved 1 rule.' }).waitFor(POLL);
      expect(await alert.count()).toBe(0);

      // Gmail blocks the IP: the store suspends it for an hour, as delivery would.
      const key = `ip:${allocated.body.id}|provider:gmail`;
      const until = Date.now() + 3_600_000;
      await contextOf(api.mailplane).store.shaping.pushBack({
        key,
        accountId: sub.accountId,
        nowMs: Date.now(),
        action: 'suspend',
        untilMs: until,
        minFactor: 1 / 16,
        gapMs: 0,
        reason: 'GMAIL_IP_REPUTATION_BLOCKED',
        reply: REPLY,
      });
      await page.getByRole('button', { name: 'Refresh' }).click();
      const table = page.getByRole('table', { name: /^Sources and destinations/ });
      const row = table.getByRole('row').filter({ hasText: 'provider:gmail' });
      await row.waitFor(POLL);
      const cells = row.getByRole('cell');
      // The IP by its address, linked to its row on the IPs page; the limits of the saved rule.
      expect(await cells.nth(0).getByRole('link').textContent()).toBe(ADDRESS);
      expect(await cells.nth(0).getByRole('link').getAttribute('href')).toBe(`#/ips/ip-${allocated.body.id}`);
      expect((await cells.nth(2).textContent())?.trim()).toBe('120 / 120');
      expect((await cells.nth(3).textContent())?.trim()).toBe('0 / 2');
      // Until when, in the viewer's locale (the browser's own formatting of that instant).
      const local = await page.evaluate<string>(`new Date(${until}).toLocaleString()`);
      expect(await cells.nth(5).locator('time').textContent()).toBe(local);
      // Why: the reason's code and the reply folded to one line, the whole of it on request.
      const why = cells.nth(6);
      expect(await why.locator('.badge').textContent()).toBe('GMAIL_IP_REPUTATION_BLOCKED');
      const summary = why.locator('summary');
      expect(await summary.innerText()).toBe(`${REPLY.slice(0, 79)}…`);
      expect(await why.getByText(REPLY, { exact: true }).isVisible()).toBe(false);
      await summary.click();
      expect(await why.getByText(REPLY, { exact: true }).isVisible()).toBe(true);
      expect(await summary.innerText()).toBe('The whole reply');
      await page.screenshot({ path: 'test-results/dashboard-shaping.png', fullPage: true });
      // On a phone the table scrolls in its own box: the page does not scroll sideways.
      await page.setViewportSize({ width: 360, height: 800 });
      expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await page.screenshot({ path: 'test-results/dashboard-shaping-360.png', fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });

      // Resume asks first: dismissed, nothing changes; accepted, the suspension is lifted.
      const resume = row.getByRole('button', { name: `Resume ${ADDRESS} to provider:gmail` });
      const questions: string[] = [];
      page.once('dialog', (dialog) => (questions.push(dialog.message()), void dialog.dismiss()));
      await resume.click();
      await expect.poll(() => questions.length, POLL).toBe(1);
      expect(questions[0]).toMatch(new RegExp(`^Resume ${ADDRESS} to provider:gmail\\?`));
      expect((await api.call('GET', '/account/shaping/state', account)).body[0].suspendedUntil).toBe(until);
      page.once('dialog', (dialog) => void dialog.accept());
      await resume.click();
      await page
        .getByRole('status')
        .filter({ hasText: `Resumed ${ADDRESS} to provider:gmail.` })
        .waitFor(POLL);
      await expect.poll(() => resume.count(), POLL).toBe(0);
      expect((await cells.nth(5).textContent())?.trim()).toBe('—');
      expect((await api.call('GET', '/account/shaping/state', account)).body[0].suspendedUntil).toBeNull();

      // The only request that failed is the refused table, on purpose.
      const refusal = `HTTP 422: ${server.origin}/dashboard/api/v1/account/shaping/rule`;
      const refusalLogged = /^console: Failed to load resource: .*\b422\b/;
      expect(problems.filter((p) => p !== refusal && !refusalLogged.test(p))).toEqual([]);
      expect(problems).toContain(refusal);
    } finally {
      await context.close();
    }

    // A sub-account's key reads no shaping: no such page in its navigation, and its address shows the overview.
    const subContext = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const subPage = await subContext.newPage();
    try {
      await signInToDashboard(subPage, server.origin, sub.apiKey);
      const nav = subPage.getByRole('navigation', { name: 'Dashboard' });
      expect(await nav.getByRole('link', { name: 'Shaping', exact: true }).count()).toBe(0);
      await subPage.goto(`${server.origin}/dashboard#/shaping`);
      await expect
        .poll(() => nav.getByRole('link', { name: 'Overview', exact: true }).getAttribute('aria-current'), POLL)
        .toBe('page');
      expect(await subPage.getByRole('heading', { name: 'Traffic shaping' }).count()).toBe(0);
    } finally {
      await subContext.close();
    }
  }, 60_000);
});
