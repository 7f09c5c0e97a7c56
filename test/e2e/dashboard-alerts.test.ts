/**
 * The dashboard's Alerts and Incidents pages (docs/reputation.md) in headless Chromium (Debian's
 * `chromium`, driven by playwright-core): an account without rules is told what one does; a rule is
 * created through the form, shown in words, edited (a threshold of 150 % is refused beside the form
 * with what was typed kept), and deleted after a confirmation. A blocked sub-account is marked as
 * such where it is named; its incident (opened through the store, as the protection would) shows in
 * the list and whole, Resolve moves it to the resolved ones and Unblock clears the block. An IP
 * traffic shaping suspended says so on the IPs page. The pages' markup does not depend on the store:
 * SQLite only (the API on both: test/integration/alerts-api.test.ts).
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

const ADDRESS = '203.0.113.9';
const BLOCK_REASON = 'hard-bounce rate 20.5 % over the last hour';

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

/** Accepts the next confirmation and answers its question. */
function acceptNext(page: Page): Promise<string> {
  return new Promise((resolve) => page.once('dialog', (dialog) => (resolve(dialog.message()), void dialog.accept())));
}

/** The text of each cell of `row`, trimmed. */
const cellTexts = async (page: Page, rowText: string) =>
  (await page.getByRole('row').filter({ hasText: rowText }).getByRole('cell').allInnerTexts()).map((t) => t.trim());

describe.skipIf(!haveChromium)(`the dashboard's Alerts and Incidents pages (sqlite)${chromiumSkipNote}`, () => {
  it('creates, edits, refuses and deletes a rule; shows, unblocks and resolves an incident', async () => {
    api = await createTestApi('sqlite');
    server = await startDashboardServer(api);
    const account = { account: api.accountKey };
    const sub = await createSubAccount(api, 'Shop');
    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    try {
      await signInToDashboard(page, server.origin, api.accountKey);
      await openDashboardPage(page, 'Alerts');
      await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor(POLL);
      await page.getByRole('status').filter({ hasText: 'No alert rules yet.' }).waitFor(POLL);

      // Create a rule: the entity by type, then by name.
      const create = page.getByRole('form', { name: 'Create an alert rule' });
      await create.getByLabel('Name').fill('Shop bounces');
      await create.getByLabel('Watch').selectOption({ label: 'Sub-account' });
      await create.getByLabel('Which sub-account').selectOption({ label: 'Shop' });
      await create.getByLabel('Parameter').selectOption({ label: 'hard-bounce rate' });
      await create.getByLabel('Threshold (%)').fill('5');
      await create.getByLabel('Provider').selectOption({ label: 'Gmail' });
      await create.getByLabel('Window').selectOption({ label: 'the last hour' });
      await create.getByLabel('Minimum volume (messages)').fill('200');
      await create.getByLabel(/^Notify by email/).fill('ops@example.com, oncall@example.com');
      await create.getByRole('button', { name: 'Create rule' }).click();
      await page.getByRole('status').filter({ hasText: 'Created the rule Shop bounces.' }).waitFor(POLL);
      const [stored] = (await api.call('GET', '/account/alert/', account)).body;
      expect(stored).toMatchObject({
        name: 'Shop bounces',
        active: true,
        entityType: 'subAccount',
        entityValue: String(sub.id),
        parameter: 0,
        threshold: '5',
        provider: '0',
        processedCountThreshold: 200,
        windowHours: 1,
        emails: ['ops@example.com', 'oncall@example.com'],
        slackUrl: null,
      });
      // The form is empty again for the next rule.
      expect(await create.getByLabel('Name').inputValue()).toBe('');
      // The rule in words, its sub-account by name.
      await expect
        .poll(() => cellTexts(page, 'Shop bounces'), POLL)
        .toEqual([
          'Shop bounces',
          'Shop',
          'hard-bounce rate',
          'at or above 5 %',
          'Gmail',
          'the last hour',
          '200 messages',
          'active',
          'ops@example.com, oncall@example.com',
          expect.stringMatching(/^Edit\s+Delete$/),
        ]);
      const row = page.getByRole('row').filter({ hasText: 'Shop bounces' });
      expect(await row.getByRole('link', { name: 'Shop' }).getAttribute('href')).toBe(`#/subaccounts/${sub.id}`);

      // Edit: a threshold of 150 % is refused beside the form, what was typed is kept.
      await row.getByRole('button', { name: 'Edit Shop bounces' }).click();
      const edit = page.getByRole('form', { name: 'Edit the rule Shop bounces' });
      expect(await edit.getByLabel('Threshold (%)').inputValue()).toBe('5');
      await edit.getByLabel('Threshold (%)').fill('150');
      await edit.getByLabel('Window').selectOption({ label: 'the last 24 hours' });
      await edit.getByRole('button', { name: 'Save rule' }).click();
      await expect.poll(() => edit.getByRole('alert').textContent(), POLL).toMatch(/threshold: a rate must be 0-100/);
      expect(await edit.getByLabel('Threshold (%)').inputValue()).toBe('150');
      expect(await edit.getByLabel('Threshold (%)').getAttribute('aria-invalid')).toBe('true');
      expect(await edit.getByLabel('Window').inputValue()).toBe('24');
      expect((await api.call('GET', `/account/alert/${stored.id}`, account)).body).toMatchObject({
        threshold: '5',
        windowHours: 1,
      });
      await edit.getByLabel('Threshold (%)').fill('7.5');
      await edit.getByRole('button', { name: 'Save rule' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved the rule Shop bounces.' }).waitFor(POLL);
      expect((await api.call('GET', `/account/alert/${stored.id}`, account)).body).toMatchObject({
        threshold: '7.5',
        windowHours: 24,
      });
      await expect.poll(() => cellTexts(page, 'Shop bounces').then((c) => c[3]), POLL).toBe('at or above 7.5 %');
      expect(await edit.count()).toBe(0);

      // Delete, once confirmed.
      const question = acceptNext(page);
      await row.getByRole('button', { name: 'Delete Shop bounces' }).click();
      expect(await question).toMatch(/^Delete the alert rule Shop bounces\?/);
      await page.getByRole('status').filter({ hasText: 'Deleted the rule Shop bounces.' }).waitFor(POLL);
      expect((await api.call('GET', '/account/alert/', account)).body).toEqual([]);
      await page.getByRole('status').filter({ hasText: 'No alert rules yet.' }).waitFor(POLL);

      // The protection blocks Shop and opens its incident (as the store is written by it).
      const blocked = await api.call('PUT', `/account/subaccount/${sub.id}`, {
        ...account,
        body: { blocked: true, block_reason: BLOCK_REASON },
      });
      expect(blocked.status, blocked.text).toBe(200);
      const started = BigInt(Date.now()) * 1_000_000n;
      const { incident } = await contextOf(api.mailplane).store.incidents.open({
        accountId: sub.accountId,
        topic: `block:${sub.id}`,
        alertId: null,
        entityType: 'subAccount',
        entityId: sub.id,
        parameter: 0,
        provider: null,
        threshold: 10,
        windowHours: 1,
        measuredValue: 20.5,
        sampleSize: 1000,
        summary: 'hard-bounce rate 20.5 % of 1000 processed over 1 hour crossed 10 %',
        started,
      });

      // Wherever Shop is named it is marked as blocked: its row, the sub-account pickers.
      await openDashboardPage(page, 'Sub-accounts');
      const subRow = page.getByRole('row').filter({ hasText: 'Shop' });
      await expect.poll(() => subRow.locator('.badge').getAttribute('title'), POLL).toBe(BLOCK_REASON);
      await openDashboardPage(page, 'Domains');
      const picker = page.getByLabel('Sub-account');
      await expect.poll(() => picker.locator('option').allInnerTexts(), POLL).toContain('Shop (blocked)');

      // The incident in the list: its entity by name, marked blocked, the value against the line.
      await openDashboardPage(page, 'Incidents');
      await page.getByRole('heading', { name: 'Incidents', level: 1 }).waitFor(POLL);
      const incidentRow = page.getByRole('row').filter({ hasText: 'crossed 10 %' });
      await incidentRow.waitFor(POLL);
      const cells = incidentRow.getByRole('cell');
      expect(await cells.nth(1).innerText()).toBe('open');
      expect(await cells.nth(2).getByRole('link').textContent()).toBe('Shop');
      expect(await cells.nth(2).locator('.badge').getAttribute('title')).toBe(BLOCK_REASON);
      expect(await cells.nth(3).innerText()).toBe('hard-bounce rate');
      expect(await cells.nth(4).innerText()).toMatch(/^20\.5 %\s+line: at or above 10 %$/);
      expect(await cells.nth(5).innerText()).toBe('1,000 processed');
      const local = await page.evaluate<string>(`new Date(${Number(started / 1_000_000n)}).toLocaleString()`);
      expect(await cells.nth(6).innerText()).toBe(local);
      expect(await cells.nth(7).innerText()).toBe('—');

      // Whole: the timeline, then Resolve and Unblock, each confirmed, the incident read again.
      await incidentRow.getByRole('link', { name: /crossed 10 %/ }).click();
      await page.getByRole('heading', { name: `Incident ${incident.id}`, level: 1 }).waitFor(POLL);
      const timeline = page.locator('ol.timeline li');
      await expect.poll(() => timeline.count(), POLL).toBe(1);
      expect(await timeline.first().innerText()).toContain('opened by mailplane');
      const resolveQuestion = acceptNext(page);
      await page.getByRole('button', { name: 'Resolve', exact: true }).click();
      expect(await resolveQuestion).toMatch(/^Resolve this incident\?/);
      await page.getByRole('status').filter({ hasText: 'Resolved the incident.' }).waitFor(POLL);
      expect((await api.call('GET', `/account/incident/${incident.id}`, account)).body.state).toBe('resolved');
      await expect.poll(() => timeline.count(), POLL).toBeGreaterThanOrEqual(2);
      expect(await timeline.allInnerTexts()).toContainEqual(expect.stringContaining('resolved by operator'));
      expect(await page.getByRole('button', { name: 'Resolve', exact: true }).count()).toBe(0);
      // The sub-account stays blocked until it is unblocked, here too.
      const facts = page.locator('dl.facts');
      expect(await facts.locator('.badge').allInnerTexts()).toEqual(['resolved', 'blocked']);
      const unblockQuestion = acceptNext(page);
      await page.getByRole('button', { name: 'Unblock Shop' }).click();
      expect(await unblockQuestion).toMatch(/^Unblock Shop\?/);
      await page.getByRole('status').filter({ hasText: 'Unblocked Shop.' }).waitFor(POLL);
      expect((await api.call('GET', `/account/subaccount/${sub.id}`, account)).body.blocked).toBe(false);
      await expect.poll(() => page.getByRole('button', { name: 'Unblock Shop' }).count(), POLL).toBe(0);
      await expect.poll(() => facts.locator('.badge').allInnerTexts(), POLL).toEqual(['resolved']);

      // The list's open incidents no longer hold it; the resolved ones do.
      await page.getByRole('link', { name: '← All incidents' }).click();
      await page.getByRole('status').filter({ hasText: 'No open incidents.' }).waitFor(POLL);
      await page.getByLabel('Show').selectOption({ label: 'Resolved' });
      await expect
        .poll(
          () => page.getByRole('row').filter({ hasText: 'crossed 10 %' }).getByRole('cell').nth(1).innerText(),
          POLL,
        )
        .toBe('resolved');
      await page.screenshot({ path: 'test-results/dashboard-incidents.png', fullPage: true });

      // Traffic shaping suspends an IP for Gmail: the IPs page says so.
      const allocated = await api.call('PUT', '/account/ip/allocate', {
        ...account,
        body: { ips: [ADDRESS], autoWarmupEnabled: false },
      });
      expect(allocated.status, allocated.text).toBe(200);
      await contextOf(api.mailplane).store.shaping.pushBack({
        key: `ip:${allocated.body.id}|provider:gmail`,
        accountId: sub.accountId,
        nowMs: Date.now(),
        action: 'suspend',
        untilMs: Date.now() + 3_600_000,
        minFactor: 1 / 16,
        gapMs: 0,
        reason: 'GMAIL_IP_REPUTATION_BLOCKED',
        reply: '550 5.7.1 blocked',
      });
      await openDashboardPage(page, 'IPs and pools');
      const ipRow = page.getByRole('row').filter({ hasText: ADDRESS });
      await expect.poll(() => ipRow.locator('.badge').allInnerTexts(), POLL).toEqual(['paused for Gmail']);

      // The only request that failed is the refused threshold, on purpose.
      const refusal = `HTTP 422: ${server.origin}/dashboard/api/v1/account/alert/${stored.id}`;
      const refusalLogged = /^console: Failed to load resource: .*\b422\b/;
      expect(problems.filter((p) => p !== refusal && !refusalLogged.test(p))).toEqual([]);
      expect(problems).toContain(refusal);
    } finally {
      await context.close();
    }
  }, 90_000);

  it("saves a webhook's incident switch; changes the automatic protection and a sub-account's override", async () => {
    const own = await createTestApi('sqlite');
    const dashboard = await startDashboardServer(own);
    const account = { account: own.accountKey };
    const sub = await createSubAccount(own, 'Shop');
    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    try {
      const hook = await own.call('POST', '/account/webhook', {
        ...account,
        body: { url: 'https://hooks.example.com/incidents', enabled: true },
      });
      expect(hook.status, hook.text).toBe(200);
      expect(hook.body.incident).toBe(false);
      await signInToDashboard(page, dashboard.origin, own.accountKey);

      // The incident switch, with its hint, saved like the event switches.
      await openDashboardPage(page, 'Webhooks');
      const incidentSwitch = page.getByRole('checkbox', { name: 'Incident', exact: true });
      await incidentSwitch.waitFor(POLL);
      expect(await incidentSwitch.isChecked()).toBe(false);
      expect(await page.locator(`#${await incidentSwitch.getAttribute('aria-describedby')}`).innerText()).toBe(
        'incident opened or resolved: docs/reputation.md',
      );
      await incidentSwitch.click();
      await expect
        .poll(async () => (await own.call('GET', `/account/webhook/${hook.body.id}`, account)).body.incident, POLL)
        .toBe(true);
      await expect.poll(() => incidentSwitch.isChecked(), POLL).toBe(true);

      // The account's protection in words: the defaults.
      await openDashboardPage(page, 'Alerts');
      const facts = page.getByRole('definition');
      await expect
        .poll(() => facts.allInnerTexts(), POLL)
        .toEqual([
          'on',
          'blocks at 10 %, warns at 5 %, judged from 100 processed',
          'blocks at 0.3 %, warns at 0.1 %, judged from 1,000 processed',
          'the current hour and the 24 before it',
          'no email or Slack (webhooks with the incident switch only)',
        ]);

      // The hard-bounce block line moves to 15 %, and whom to tell.
      const settings = page.getByRole('form', { name: 'Automatic protection settings' });
      const hardBounce = settings.getByRole('group', { name: 'Hard-bounce rate', exact: true });
      expect(await hardBounce.getByLabel('Block at (%)').inputValue()).toBe('10');
      await hardBounce.getByLabel('Block at (%)').fill('15');
      await settings.getByLabel(/^Notify by email/).fill('ops@example.com');
      await settings.getByRole('button', { name: 'Save protection' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved the automatic protection.' }).waitFor(POLL);
      expect((await own.call('GET', '/account/protection', account)).body.settings).toMatchObject({
        enabled: true,
        hardBounceRate: { block: 15, warn: 5, minProcessed: 100 },
        emails: ['ops@example.com'],
        slackUrl: null,
      });
      await expect
        .poll(() => facts.nth(1).innerText(), POLL)
        .toBe('blocks at 15 %, warns at 5 %, judged from 100 processed');
      expect(await facts.nth(4).innerText()).toBe('ops@example.com');

      // A warn line above the block line: the API's refusal beside the form, what was typed kept.
      await hardBounce.getByLabel('Warn at (%)').fill('20');
      await settings.getByRole('button', { name: 'Save protection' }).click();
      await expect.poll(() => settings.getByRole('alert').textContent(), POLL).toMatch(/warn must not be above block/);
      expect(await hardBounce.getByLabel('Warn at (%)').inputValue()).toBe('20');
      expect(await hardBounce.getByLabel('Warn at (%)').getAttribute('aria-invalid')).toBe('true');
      expect(await hardBounce.getByLabel('Block at (%)').inputValue()).toBe('15');
      expect((await own.call('GET', '/account/protection', account)).body.settings.hardBounceRate.warn).toBe(5);

      // Shop gets its own protection, chosen by name: off, and a hard-bounce line of its own.
      const override = page.getByRole('form', { name: "A sub-account's own protection" });
      await page.getByRole('status').filter({ hasText: 'No sub-account has its own protection' }).waitFor(POLL);
      await override.getByLabel('Sub-account').selectOption({ label: 'Shop' });
      await override.getByLabel('Protection').selectOption({ label: 'Off' });
      await override.getByLabel('Own hard-bounce rate line').check();
      const ownLine = override.getByRole('group', { name: 'Hard-bounce rate of this sub-account' });
      expect(await ownLine.getByLabel('Block at (%)').inputValue()).toBe('15');
      await ownLine.getByLabel('Block at (%)').fill('25');
      await ownLine.getByLabel('Warn at (%)').fill('12.5');
      await override.getByRole('button', { name: 'Save override' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved the override of Shop.' }).waitFor(POLL);
      expect((await own.call('GET', '/account/protection', account)).body.subAccounts).toEqual([
        expect.objectContaining({
          subAccountId: sub.id,
          overrides: { enabled: false, hardBounceRate: { block: 25, warn: 12.5, minProcessed: 100 } },
        }),
      ]);
      await expect
        .poll(() => cellTexts(page, 'Shop'), POLL)
        .toEqual([
          'Shop',
          'off',
          'blocks at 25 %, warns at 12.5 %, judged from 100 processed',
          "as the account's",
          expect.stringMatching(/^Change\s+Remove$/),
        ]);

      await page.screenshot({ path: 'test-results/dashboard-protection.png', fullPage: true });

      // Removed once confirmed: Shop follows the account again.
      const question = acceptNext(page);
      await page.getByRole('button', { name: 'Remove the override of Shop' }).click();
      expect(await question).toMatch(/^Remove the protection override of Shop\?/);
      await page.getByRole('status').filter({ hasText: 'Removed the override of Shop.' }).waitFor(POLL);
      expect((await own.call('GET', '/account/protection', account)).body.subAccounts).toEqual([]);
      await page.getByRole('status').filter({ hasText: 'No sub-account has its own protection' }).waitFor(POLL);

      // The only request that failed is the refused warn line, on purpose.
      const refusal = `HTTP 422: ${dashboard.origin}/dashboard/api/v1/account/protection`;
      const refusalLogged = /^console: Failed to load resource: .*\b422\b/;
      expect(problems.filter((p) => p !== refusal && !refusalLogged.test(p))).toEqual([]);
      expect(problems).toContain(refusal);
    } finally {
      await context.close();
      await dashboard.close();
      await own.mailplane.close();
      await own.close();
    }
  }, 90_000);
});
