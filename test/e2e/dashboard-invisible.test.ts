/**
 * Display names and subjects with bidirectional controls (issue 25, item 10) in headless Chromium
 * (Debian's `chromium`, driven by playwright-core): the API takes them as given, and the dashboard's
 * activity list and message page show U+202E written out as `\u202E` instead of letting it turn
 * the rest of the line around. The markup does not depend on the store: SQLite only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  BROWSER_POLL as POLL,
  chromiumSkipNote,
  haveChromium,
  launchChromium,
  openDashboardPage,
  signInToDashboard,
} from '../support/chromium.js';
import { startDashboardServer, type DashboardServer } from '../support/dashboard-server.js';
import { RCPT_DOMAIN, startDeliveryEnv, type DeliveryEnv } from '../support/delivery-env.js';

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

describe.skipIf(!haveChromium)(`invisible characters in the dashboard (sqlite)${chromiumSkipNote}`, () => {
  it('shows a display name and subject with U+202E escaped on the activity list and the message page', async () => {
    env = await startDeliveryEnv('sqlite');
    server = await startDashboardServer(env.api);
    const from = `news@${env.sender.domain.name}`;
    const sent = await env.api.call('POST', '/subaccount/email', {
      sub: env.key,
      body: {
        from: { email: from, name: 'Support \u202egnp.exe' },
        to: [{ email: `ann@${RCPT_DOMAIN}`, name: 'Ann \u2067Lee' }],
        subject: 'Invoice \u202efdp.exe',
        textBody: 'Hi',
      },
    });
    expect(sent.status, sent.text).toBe(200);
    const messageId = sent.body[0].messageId as string;
    // The API answers the text as given: only what people read on the dashboard is escaped.
    expect((await env.message(messageId)).from).toMatchObject({ name: 'Support \u202egnp.exe' });

    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    try {
      await signInToDashboard(page, server.origin, env.key);
      await openDashboardPage(page, 'Activity');
      const link = page.getByRole('link', { name: 'Invoice \\u202Efdp.exe' });
      await expect.poll(() => link.count(), POLL).toBe(1);
      await link.click();
      const facts = page.locator('dl.facts');
      await expect.poll(() => facts.locator('dt').allTextContents(), POLL).toContain('From');
      const value = (label: string) => facts.locator(`dt:text-is("${label}") + dd`).textContent();
      expect(await value('Subject')).toBe('Invoice \\u202Efdp.exe');
      expect(await value('From')).toBe(`Support \\u202Egnp.exe <${from}>`);
      expect(await value('To')).toBe(`Ann \\u2067Lee <ann@${RCPT_DOMAIN}>`);
      expect(await page.locator('dl.facts').textContent()).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    } finally {
      await context.close();
    }
  });
});
