/**
 * Signing in to the dashboard in headless Chromium (Debian's `chromium`, driven by playwright-core)
 * with an account key the operator chose (`MAILPLANE_ACCOUNT_API_KEY`, no `mpak_` prefix): the
 * page opens, and a key the API refuses shows the error instead. Sign-in does not depend on the
 * store's kind beyond what test/integration/dashboard.test.ts checks on both, so this runs on SQLite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { BROWSER_POLL as POLL, chromiumSkipNote, haveChromium, launchChromium } from '../support/chromium.js';
import { createTestApi, type TestApi } from '../support/api.js';
import { startDashboardServer, type DashboardServer } from '../support/dashboard-server.js';

let browser: Browser | undefined;
let api: TestApi | undefined;
let server: DashboardServer | undefined;
beforeAll(async () => {
  if (!haveChromium) return;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await api?.close();
});

describe.skipIf(!haveChromium)(`dashboard sign-in in Chromium (sqlite)${chromiumSkipNote}`, () => {
  it("signs in with the operator's own account key, and refuses one the API refuses", async () => {
    api = await createTestApi('sqlite');
    const chosen = 'operators-own-key-for-the-console';
    await api.mailplane.ensureAccount({ apiKey: chosen });
    server = await startDashboardServer(api);
    const page = await browser!.newPage();
    await page.goto(`${server.origin}/dashboard`);
    const keyField = page.getByLabel('Account or sub-account API key');

    await keyField.fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByText('this is not a valid account or sub-account API key').count(), POLL).toBe(1);

    await keyField.fill(chosen);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const navigation = page.getByRole('navigation', { name: 'Dashboard' });
    await navigation.waitFor(POLL);
    // The session works: a page that reads the API through it lists the account's sub-accounts.
    await navigation.getByRole('link', { name: 'Sub-accounts', exact: true }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'Default', exact: true }).count(), POLL).toBe(1);
    await page.close();
  });
});
