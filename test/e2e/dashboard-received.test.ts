/**
 * The dashboard's Received page (docs/dashboard.md) in headless Chromium at 1280 and 390 px (screenshots in test-results/), on
 * SQLite (the pages' markup does not depend on the store; the API under them is tested on both in
 * test/integration/inbound-activity.test.ts): mail taken by the real inbound listener is listed
 * with its sub-account's name, route and status; its page shows the authentication results, links
 * the sent message it answers, delivers it again and downloads it raw; the sent message's page
 * lists the reply; a sub-account with no mail is told what to do. No page scrolls sideways, logs a
 * console error or fails a request.
 */
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  BROWSER_POLL as POLL,
  chromiumSkipNote,
  haveChromium,
  launchChromium,
  signInToDashboard,
  signOutOfDashboard,
  watchPageProblems,
} from '../support/chromium.js';
import { createSubAccount } from '../support/api.js';
import { startDashboardServer, type DashboardServer } from '../support/dashboard-server.js';
import { REMOTE_DOMAIN, startInboundEnv, type InboundEnv } from '../support/inbound.js';

const WIDTHS = [1280, 390];
const RESULTS = 'test-results';

let browser: Browser | undefined;
let bench: InboundEnv | undefined;
let server: DashboardServer | undefined;
beforeAll(async () => {
  if (!haveChromium) return;
  mkdirSync(RESULTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await bench?.close();
});

/** Whether the page scrolls sideways: its width beyond the viewport's. */
const overflow = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');

/** Waits until the page has read what it shows. */
async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await expect.poll(() => page.getByText(/^(Loading|Searching)/).count(), POLL).toBe(0);
}

describe.skipIf(!haveChromium)(`the dashboard's Received page at 1280 and 390 px (sqlite)${chromiumSkipNote}`, () => {
  it('lists received mail, shows a message with its checks, delivers it again, downloads it, and threads the reply', async () => {
    bench = await startInboundEnv('sqlite');
    server = await startDashboardServer(bench.env.api);
    const { api } = bench.env;
    const subName = 'Support desk';
    expect(
      (
        await api.call('PUT', `/account/subaccount/${bench.env.sender.subAccount.id}`, {
          account: api.accountKey,
          body: { name: subName },
        })
      ).status,
    ).toBe(200);
    await bench.route(`reply+*@${bench.domain}`, 'store');
    const [sent] = await bench.env.send(['someone@rcpt.test'], { subject: 'Your order' });
    const longSubject = `Re: Your order ${'Supercalifragilistic'.repeat(5)}`;
    await bench.submit({
      to: `reply+${'long-local-part-'.repeat(3)}x@${bench.domain}`,
      subject: longSubject,
      text: 'Thanks, it arrived.',
      inReplyTo: `<${sent!.messageId}@${bench.domain}>`,
    });
    const [received] = await bench.messages();
    const empty = await createSubAccount(api, 'Nothing received');

    for (const width of WIDTHS) {
      const context = await browser!.newContext({ viewport: { width, height: 800 }, acceptDownloads: true });
      const page = await context.newPage();
      const problems = watchPageProblems(page);
      try {
        await signInToDashboard(page, server.origin, api.accountKey);
        await page.goto(`${server.origin}/dashboard#/received`);
        await settled(page);
        const row = page.getByRole('row').filter({ hasText: longSubject });
        await expect.poll(() => row.textContent(), POLL).toContain(subName);
        expect(await row.textContent()).toContain(`alice@${REMOTE_DOMAIN}`);
        expect(await row.textContent()).toContain(`reply+*@${bench.domain}`);
        expect(await row.textContent()).toContain('stored');
        expect(await overflow(page), `list at ${width}`).toBeLessThanOrEqual(0);

        await row.getByRole('link', { name: longSubject }).click();
        await page.getByRole('heading', { name: 'Received message' }).waitFor(POLL);
        await settled(page);
        const facts = page.locator('dl.facts');
        for (const verdict of ['SPF pass', 'DKIM pass', 'DMARC pass', 'ARC none'])
          await facts.getByText(verdict).waitFor(POLL);
        expect(await overflow(page), `message at ${width}`).toBeLessThanOrEqual(0);
        await page.screenshot({ path: `${RESULTS}/dashboard-received-${width}.png`, fullPage: true });

        await page.getByRole('button', { name: 'Deliver again' }).click();
        await page.getByText(`Delivered again through reply+*@${bench.domain}: stored.`).waitFor(POLL);

        const [download] = await Promise.all([
          page.waitForEvent('download', POLL),
          page.getByRole('button', { name: 'Download the raw message' }).click(),
        ]);
        expect(download.suggestedFilename()).toBe(`${received!.id}.eml`);
        expect((await readFile((await download.path())!)).equals(received!.raw!)).toBe(true);

        // The sent message it answers, and the reply listed there.
        await page.getByRole('link', { name: /the message sent as/ }).click();
        await page.getByRole('heading', { name: 'Replies' }).waitFor(POLL);
        await settled(page);
        const replies = page.getByRole('list', { name: 'Replies, newest first' });
        await replies.getByRole('link', { name: longSubject }).waitFor(POLL);
        expect(await overflow(page), `sent message at ${width}`).toBeLessThanOrEqual(0);
        await replies.getByRole('link', { name: longSubject }).click();
        await page.getByRole('heading', { name: 'Received message' }).waitFor(POLL);

        // A sub-account that has received nothing is told how to receive.
        await signOutOfDashboard(page);
        await signInToDashboard(page, server.origin, empty.apiKey);
        await page.goto(`${server.origin}/dashboard#/received`);
        await page.getByText(/No mail received yet\. Enable receiving on a verified domain/).waitFor(POLL);
        expect(await overflow(page), `empty at ${width}`).toBeLessThanOrEqual(0);
        expect(problems, `at ${width}`).toEqual([]);
      } finally {
        await context.close();
      }
    }
  }, 120_000);

  it("shows the posts of a message to its route's webhook", async () => {
    bench ??= await startInboundEnv('sqlite');
    server ??= await startDashboardServer(bench.env.api);
    await bench.route(`hook@${bench.domain}`, 'webhook');
    await bench.submit({ to: `hook@${bench.domain}`, subject: 'Post me', text: 'to the webhook' });
    const posted = async () => (await bench!.messages()).find((m) => m.subject === 'Post me');
    await expect.poll(async () => (await posted())?.status, POLL).toBe('posted');

    const context = await browser!.newContext({ viewport: { width: 390, height: 800 } });
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    try {
      await signInToDashboard(page, server.origin, bench.env.api.accountKey);
      await page.goto(`${server.origin}/dashboard#/received/${(await posted())!.id}`);
      await page.getByRole('heading', { name: 'Posts to the webhook' }).waitFor(POLL);
      const table = page.getByRole('table', { name: /Posts of this message to its route's URL/ });
      const rows = table.getByRole('row');
      await expect.poll(() => rows.count(), POLL).toBe(2); // the header and the one POST
      expect(await rows.nth(1).textContent()).toMatch(/1delivered.*HTTP 200/);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
