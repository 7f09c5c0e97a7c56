/**
 * The dashboard for everyday use (issue 31, items 4 and 5) in headless Chromium (Debian's
 * `chromium`, driven by playwright-core), on SQLite and PostgreSQL: the activity list and a
 * message's page show the subject as the recipient got it (not its `{{firstName}}` template), the
 * sub-account and the pool by name, linked to the rows that list them; a delivery attempt that got
 * no SMTP reply reads as its reason, with no "null" on the page; the Domains and Suppressions pages
 * open on the sub-account with the most recent mail (not the empty Default), say what to do on an
 * empty list, and, once another sub-account is chosen, open on that one in the same browser; and
 * blocking a sub-account asks first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
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
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';

let browser: Browser | undefined;
beforeAll(async () => {
  if (haveChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** The value of the fact `label` of a message's page. */
const fact = (page: Page, label: string) => page.locator(`dl.facts dt:text-is("${label}") + dd`);

/** The label of the option the Sub-account picker shows. */
const pickedSubAccount = (page: Page) => page.getByLabel('Sub-account').locator('option:checked').textContent();

/** What a person reads of the page: nothing of it may be a program's placeholder. */
const bodyText = (page: Page) => page.locator('body').innerText();
const PLACEHOLDERS = /\b(null|undefined|NaN)\b|\[object Object\]/;

// SQLite only: the pages read the API, which both stores serve alike (the API and conformance tests
// run on both); dashboard-browser.test.ts walks the dashboard on PostgreSQL as well.
describe.skipIf(!haveChromium).each(['sqlite'] as const)(
  `the dashboard for everyday use (%s)${chromiumSkipNote}`,
  (kind) => {
    let env: DeliveryEnv | undefined;
    let server: DashboardServer | undefined;
    afterAll(async () => {
      await server?.close();
      await env?.close();
    });

    it('shows names and rendered subjects, no null, and starts where the mail is', async () => {
      env = await startDeliveryEnv(kind, { retryDelaysMs: [60_000] });
      server = await startDashboardServer(env.api);
      const { api } = env;
      const account = { account: api.accountKey };
      const pool = await api.call('POST', '/account/ippool', { ...account, body: { name: 'Bulk mail' } });
      expect(pool.status, pool.text).toBe(200);
      // The connection to the MX breaks at RCPT for this address: a soft bounce with no SMTP reply.
      env.sink.behave({ rcptFor: { [`cut@${RCPT_DOMAIN}`]: 'drop' } });
      await env.send([`ada@${RCPT_DOMAIN}`], {
        to: [{ email: `ada@${RCPT_DOMAIN}`, customFields: { firstName: 'Ada' } }],
        subject: 'Welcome, {{firstName}}',
        ippool: 'Bulk mail',
      });
      const [cut] = await env.send([`cut@${RCPT_DOMAIN}`], { subject: 'Cut off' });
      await env.waitForStatus(cut!.messageId, 'deferred');
      // A sub-account made after the one with the mail, with nothing in it yet.
      const empty = await api.call('POST', '/account/subaccount', { ...account, body: { name: 'Empty Co' } });
      expect(empty.status, empty.text).toBe(201);
      const sender = env.sender.subAccount;

      const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const problems = watchPageProblems(page);
      try {
        await signInToDashboard(page, server.origin, api.accountKey);

        // The activity list: the subject as Ada got it, and whose mail it is by name.
        await openDashboardPage(page, 'Activity');
        const welcomeLink = page.getByRole('link', { name: 'Welcome, Ada', exact: true });
        await welcomeLink.waitFor(POLL);
        expect(await page.getByText('{{firstName}}').count()).toBe(0);
        const welcomeRow = page.getByRole('row').filter({ has: welcomeLink });
        expect(await welcomeRow.getByRole('link', { name: sender.name, exact: true }).getAttribute('href')).toBe(
          `#/subaccounts/${sender.id}`,
        );

        // The message's page: rendered subject beside its template, sub-account and pool by name, linked.
        await welcomeLink.click();
        await fact(page, 'Subject').waitFor(POLL);
        expect(await fact(page, 'Subject').textContent()).toBe('Welcome, Ada');
        expect(await fact(page, 'Subject template').textContent()).toBe('Welcome, {{firstName}}');
        const subLink = fact(page, 'Sub-account').getByRole('link');
        expect(await subLink.textContent()).toBe(sender.name);
        const poolLink = fact(page, 'Pool').getByRole('link');
        await expect.poll(() => poolLink.textContent(), POLL).toBe('Bulk mail');
        expect(await poolLink.getAttribute('href')).toBe(`#/ips/pool-${pool.body.id}`);
        expect(await bodyText(page)).not.toMatch(PLACEHOLDERS);
        // The link leads to the sub-account's row, marked.
        await subLink.click();
        const marked = page.locator('tr[aria-current="true"]');
        await expect.poll(() => marked.locator('td').nth(1).textContent(), POLL).toBe(sender.name);

        // No reply from the MX: the attempt reads as its reason, never "SMTP reply: null …".
        await page.goto(`${server.origin}/dashboard#/message/${cut!.messageId}`);
        const timeline = page.getByRole('list', { name: 'Events, oldest first' });
        await expect.poll(() => timeline.getByText('Soft bounce').count(), POLL).toBe(1);
        expect(await timeline.locator('.smtp').first().textContent()).toMatch(/^Reason: \S/);
        expect(await bodyText(page)).not.toMatch(PLACEHOLDERS);

        // Domains opens on the sub-account with the most recent mail, not on the empty Default.
        await openDashboardPage(page, 'Domains');
        await page.getByRole('heading', { name: /^sender\.test/ }).waitFor(POLL);
        expect(await pickedSubAccount(page)).toBe(sender.name);
        // Another one chosen: its empty list says what to do.
        await page.getByLabel('Sub-account').selectOption({ label: 'Empty Co' });
        await page.getByText('No domains in Empty Co yet. Add the domain you send from above').waitFor(POLL);
        // The choice is remembered in this browser: Suppressions, and a new tab, open on it.
        await openDashboardPage(page, 'Suppressions');
        await page.getByText('No suppressed addresses in Empty Co.').waitFor(POLL);
        expect(await pickedSubAccount(page)).toBe('Empty Co');
        const again = await context.newPage();
        const againProblems = watchPageProblems(again);
        await again.goto(`${server.origin}/dashboard#/domains`);
        await again.getByText('No domains in Empty Co yet.').waitFor(POLL);
        expect(await pickedSubAccount(again)).toBe('Empty Co');
        await again.close();

        // Blocking is destructive: it asks first, and nothing changes when the answer is no.
        await openDashboardPage(page, 'Sub-accounts');
        const block = page.getByRole('button', { name: 'Block Empty Co', exact: true });
        expect(await block.getAttribute('class')).toContain('danger');
        const questions: string[] = [];
        page.once('dialog', (dialog) => (questions.push(dialog.message()), void dialog.dismiss()));
        await block.click();
        await expect.poll(() => questions.length, POLL).toBe(1);
        expect(questions[0]).toMatch(/^Block Empty Co\?/);
        page.once('dialog', (dialog) => void dialog.accept());
        await block.click();
        await page.getByRole('button', { name: 'Unblock Empty Co', exact: true }).waitFor(POLL);
        const state = await api.call('GET', `/account/subaccount/${empty.body.id}`, account);
        expect(state.body.blocked).toBe(true);
        expect([...problems, ...againProblems]).toEqual([]);
      } finally {
        await context.close();
      }
    }, 90_000);
  },
);
