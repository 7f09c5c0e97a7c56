/**
 * DKIM key rotation from the dashboard, in headless Chromium (Debian's `chromium`, driven by
 * playwright-core): a sub-account's Domains page rotates the key and lists the new key's record to
 * publish, abandons the rotation, rotates again and, once the record is published in the test DNS
 * and checked, shows the new key signing and the old one to keep until it retires, with no console
 * error and no failed request. The page's markup does not depend on the store, so this runs on
 * SQLite only; the rotation itself is tested on both in test/integration/dkim-rotation.test.ts.
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
import { startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';

let browser: Browser | undefined;
let env: DeliveryEnv | undefined;
let server: DashboardServer | undefined;
beforeAll(async () => {
  if (haveChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await env?.close();
});

/** The labels of the records table's rows, in order (`DKIM`, `DKIM, new key`, `Return-Path`, …). */
const rowLabels = (page: Page) => page.locator('.records tbody th').allTextContents();

describe.skipIf(!haveChromium)(`DKIM rotation in the dashboard (sqlite)${chromiumSkipNote}`, () => {
  it('rotates, shows the record to publish, abandons, and shows the old key retiring after the switch', async () => {
    env = await startDeliveryEnv('sqlite');
    server = await startDashboardServer(env.api);
    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    const domainPath = `/subaccount/domain/${env.sender.domain.id}`;
    const domain = async () => (await env!.api.call('GET', domainPath, { sub: env!.key })).body;
    try {
      await signInToDashboard(page, server.origin, env.key);
      await openDashboardPage(page, 'Domains');
      await expect.poll(() => rowLabels(page), POLL).toEqual(['DKIM', 'Return-Path', 'SPF', 'Tracking', 'DMARC']);

      // Rotate: the new key's record is listed to publish, as the API lists it.
      await page.getByRole('button', { name: 'Rotate the DKIM key of sender.test' }).click();
      await expect
        .poll(() => rowLabels(page), POLL)
        .toEqual(['DKIM', 'DKIM, new key', 'Return-Path', 'SPF', 'Tracking', 'DMARC']);
      const pending = (await domain()).dkimRecords[1];
      const newKeyRow = page
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'DKIM, new key', exact: true }) });
      expect(await newKeyRow.locator('code').allTextContents()).toEqual([pending.host, pending.textValue]);
      expect(await newKeyRow.textContent()).toContain('signing switches to the new key once it is found');

      // Abandon it: the row goes, and so does the key.
      await page.getByRole('button', { name: 'Abandon the DKIM key rotation of sender.test' }).click();
      await expect.poll(() => rowLabels(page), POLL).toEqual(['DKIM', 'Return-Path', 'SPF', 'Tracking', 'DMARC']);
      expect((await domain()).dkimRecords).toHaveLength(1);

      // Rotate again, publish the record, check: the new key signs and the old one is kept until it retires.
      await page.getByRole('button', { name: 'Rotate the DKIM key of sender.test' }).click();
      await expect.poll(() => rowLabels(page), POLL).toContain('DKIM, new key');
      const published = (await domain()).dkimRecords[1];
      env.dns.txt(published.host, published.textValue);
      await page.getByRole('button', { name: 'Check the DNS records of sender.test now' }).click();
      await expect
        .poll(() => rowLabels(page), POLL)
        .toEqual(['DKIM', 'DKIM, old key', 'Return-Path', 'SPF', 'Tracking', 'DMARC']);
      const signingRow = page
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'DKIM', exact: true }) });
      expect(await signingRow.locator('code').first().textContent()).toBe(published.host);
      const oldKeyRow = page
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'DKIM, old key', exact: true }) });
      expect(await oldKeyRow.textContent()).toMatch(/keep this record until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
      await page.screenshot({ path: 'test-results/dashboard-dkim-rotated.png', fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
