/**
 * The dashboard in a real browser: headless Chromium from Debian's `chromium` package, driven by
 * playwright-core (no browser download). Signs in, creates a sub-account, adds and verifies a
 * sandbox domain, sends a message, finds it on the activity page, opens its timeline and checks the
 * overview chart draws the day's mail, reads the message in the sandbox inbox (its script refused),
 * sees a webhook's deliveries to a real local receiver (a 500, then the retry's 200), compares a
 * group chosen from the listed ones, allocates and releases an IP and deletes a pool,
 * with no other console error and no failed request, on SQLite and
 * PostgreSQL. Screenshots go to test-results/ (the documentation's images come from
 * `npm run screenshots`, scripts/screenshots.ts).
 */
import { mkdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSandbox } from 'mailplane';
import type { Browser, Page } from 'playwright-core';
import {
  BROWSER_POLL as POLL,
  chromiumSkipNote,
  haveChromium,
  launchChromium,
  signOutOfDashboard,
  watchPageProblems,
} from '../support/chromium.js';
import { mxTransport } from '../../adapters/transport/smtp/index.js';
import { createTestApi, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { startDashboardServer, type DashboardServer } from '../support/dashboard-server.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

const RESULTS = 'test-results';

let browser: Browser | undefined;
let api: TestApi | undefined;
let server: DashboardServer | undefined;
beforeAll(async () => {
  if (!haveChromium) return;
  mkdirSync(RESULTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await server?.close();
  await api?.mailplane.close();
  await api?.close();
  api = server = undefined;
});

async function screenshot(page: Page, kind: string, name: string): Promise<void> {
  await page.screenshot({ path: `${RESULTS}/dashboard-${kind}-${name}.png`, fullPage: true });
}

/**
 * Opens a page from the navigation and waits until it is the current one: the old page's controls
 * (the Domains and Suppressions pages both have a "Sub-account" picker) must not take the next action.
 */
async function open(page: Page, name: string): Promise<void> {
  const link = page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true });
  await link.click();
  await expect.poll(() => link.getAttribute('aria-current'), POLL).toBe('page');
}

describe.skipIf(!haveChromium).each(storeKinds)(`dashboard in Chromium (%s)${chromiumSkipNote}`, (kind) => {
  it('signs in, creates a sub-account, verifies a sandbox domain, finds a sent message and its timeline, and charts it', async () => {
    const sandbox = await startSandbox();
    const receiver = await startWebhookReceiver();
    api = await createTestApi(kind, {
      sandbox,
      // The receiver is on loopback; its failed first POST is retried at once.
      webhooks: { allowPrivateTargets: true, retryDelaysMs: [300, 300], timeoutMs: 3000 },
      delivery: {
        retryDelaysMs: [50, 50],
        connectionTimeoutMs: 3000,
        greetingTimeoutMs: 3000,
        socketTimeoutMs: 3000,
      },
      jobs: { pollIntervalMs: 25 },
      transport: (ctx) =>
        mxTransport({ resolver: ctx.resolver, port: ctx.delivery.mxPort, ehloName: 'mta.mailplane.test' }),
    });
    api.mailplane.start();
    server = await startDashboardServer(api);
    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    try {
      // Sign in with the account key.
      await page.goto(`${server.origin}/dashboard`);
      await page.getByLabel('Account or sub-account API key').fill(api.accountKey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page
        .getByRole('navigation', { name: 'Dashboard' })
        .waitFor({ timeout: 10_000 })
        .catch(async (error: unknown) => {
          // say what the page showed instead (an error note, a failed request)
          throw new Error(`not signed in: ${problems.join('; ')} | ${await page.textContent('body')}`, {
            cause: error,
          });
        });
      expect(
        (await context.cookies()).map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite })),
      ).toEqual([{ name: 'mailplane_dashboard', httpOnly: true, sameSite: 'Strict' }]);
      // the session cookie is HttpOnly: the page's scripts cannot read it
      expect(await page.evaluate('document.cookie')).toBe('');

      // Create a sub-account: its key is shown once.
      await open(page, 'Sub-accounts');
      await page.getByLabel('Name').fill('Acme <b>Mail</b>');
      await page.getByRole('button', { name: 'Create sub-account' }).click();
      const subKey = (await page.getByTestId('new-api-key').textContent())!;
      expect(subKey).toMatch(/^mpsk_/);
      // The tenant's string is text, never markup.
      await expect.poll(() => page.getByRole('cell', { name: 'Acme <b>Mail</b>', exact: true }).count(), POLL).toBe(1);
      await screenshot(page, kind, 'sub-accounts');

      // Add acme.test and verify it against the sandbox DNS.
      await page.getByRole('link', { name: 'Domains of Acme <b>Mail</b>' }).click();
      await page.getByLabel('Domain name').fill('acme.test');
      await page.getByRole('button', { name: 'Add domain' }).click();
      await page.getByRole('button', { name: 'Check the DNS records of acme.test now' }).click();
      await expect.poll(() => page.locator('.domain h2 .badge').textContent(), { timeout: 15_000 }).toBe('verified');
      await screenshot(page, kind, 'domains');

      // Suppress an address of that sub-account, find it, and remove it again.
      await open(page, 'Suppressions');
      await page.getByLabel('Sub-account').selectOption({ label: 'Acme <b>Mail</b>' });
      await page.getByLabel('Address', { exact: true }).fill('blocked@example.com');
      await page.getByRole('button', { name: 'Add suppression' }).click();
      await expect
        .poll(() => page.getByRole('cell', { name: 'blocked@example.com', exact: true }).count(), POLL)
        .toBe(1);
      await screenshot(page, kind, 'suppressions');
      // Removing is confirmed first; the emptied list then says what fills it.
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Remove blocked@example.com' }).click();
      await expect.poll(() => page.getByText('No suppressed addresses in Acme <b>Mail</b>.').count(), POLL).toBe(1);

      // Register a webhook: its signing secret is shown once; then turn it off and one event on.
      await open(page, 'Webhooks');
      await page.getByLabel('Endpoint URL').fill('https://hooks.example.com/mail');
      await page.getByRole('button', { name: 'Register webhook' }).click();
      expect(await page.getByTestId('webhook-secret').textContent()).toMatch(/^\S{20,}$/);
      const hook = () => page.getByRole('article', { name: 'https://hooks.example.com/mail' });
      await hook().getByLabel('Enabled').click();
      await expect.poll(() => hook().getByLabel('Enabled').isChecked(), POLL).toBe(false);
      const opened = await hook().getByLabel('Opened').isChecked();
      await hook().getByLabel('Opened').click();
      await expect.poll(() => hook().getByLabel('Opened').isChecked(), POLL).toBe(!opened);
      // (the list's own re-read must end first: a reload would abort it)
      await page.waitForLoadState('networkidle');
      await page.reload();
      await expect.poll(() => hook().getByLabel('Opened').isChecked(), POLL).toBe(!opened);
      expect(await hook().getByLabel('Enabled').isChecked()).toBe(false);
      // A second webhook, at a real receiver on loopback, for Delivered events: it answers 500 first.
      receiver.answer(500);
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Register webhook' }).click();
      const local = () => page.getByRole('article', { name: receiver.url });
      await local().getByLabel('Delivered').click();
      await expect.poll(() => local().getByLabel('Delivered').isChecked(), POLL).toBe(true);
      await page.waitForLoadState('networkidle');

      // Send a message with the new key, as any client would, and wait for its delivery.
      const sent = await fetch(`${server.origin}/api/v1/subaccount/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-subaccount-apikey': subKey },
        body: JSON.stringify({
          from: { email: 'hello@acme.test' },
          to: [{ email: 'ada@example.com' }],
          subject: 'Welcome aboard',
          textBody: 'Hello!',
          htmlBody: '<p>Hello <b>Ada</b></p><script>parent.document.title = "pwned"</script>',
          trackOpens: false,
          trackClicks: false,
          groups: ['welcome'],
        }),
      });
      expect(sent.status).toBe(200);
      const [{ messageId }] = (await sent.json()) as [{ messageId: string }];
      await vi.waitFor(
        async () => {
          const view = await api!.call('GET', `/account/message/${messageId}`, { account: api!.accountKey });
          if (view.body.status !== 'delivered')
            throw new Error(`status ${view.body.status} ${JSON.stringify(view.body.events)}`);
        },
        { timeout: 20_000, interval: 100 },
      );

      // The webhook page shows the receiver's deliveries: the 500 to be retried, then the retry's 200.
      await open(page, 'Webhooks');
      const deliveries = page.getByRole('table', { name: `Recent deliveries to ${receiver.url}` });
      await expect
        .poll(
          async () => {
            await page.getByRole('button', { name: `Refresh the deliveries to ${receiver.url}` }).click();
            await page.waitForLoadState('networkidle');
            return deliveries.locator('tbody tr').count();
          },
          { timeout: 15_000 },
        )
        .toBe(2);
      const cells = (row: number) => deliveries.locator('tbody tr').nth(row).getByRole('cell').allTextContents();
      const [newest, oldest] = [await cells(0), await cells(1)];
      expect(newest[0]).toMatch(/UTC$/);
      expect(newest[1]).toBe(oldest[1]);
      expect([newest[2], newest[3], newest[4], newest[6]]).toEqual(['2', 'delivered', 'HTTP 200', '—']);
      expect([oldest[2], oldest[3], oldest[4]]).toEqual(['1', 'failed, will retry', 'HTTP 500']);
      expect(oldest[6]).toMatch(/UTC$/);
      expect(receiver.received).toHaveLength(2);
      await screenshot(page, kind, 'webhooks');

      // Find it on the activity page and open its timeline.
      await open(page, 'Activity');
      await page.getByLabel('Recipient').fill('ada@example.com');
      await page.getByRole('button', { name: 'Search' }).click();
      await expect.poll(() => page.getByRole('link', { name: 'Welcome aboard' }).count(), POLL).toBe(1);
      await screenshot(page, kind, 'activity');
      await page.getByRole('link', { name: 'Welcome aboard' }).click();
      const timeline = page.getByRole('list', { name: 'Events, oldest first' });
      await expect
        .poll(() => timeline.locator('li strong').allTextContents(), POLL)
        .toEqual(['Processed', 'Delivered']);
      expect(await timeline.textContent()).toMatch(/SMTP reply: 250 /);
      await screenshot(page, kind, 'message');

      // The sandbox inbox shows the captured message: DKIM passes, and its HTML is in a frame that
      // runs no script.
      await open(page, 'Sandbox inbox');
      await page.getByRole('link', { name: 'Welcome aboard' }).click();
      await expect.poll(() => page.locator('.captured .badge').first().textContent(), POLL).toBe('pass');
      const frame = page.locator('iframe.mail-html');
      expect(await frame.getAttribute('sandbox')).toBe('');
      await expect.poll(() => page.frameLocator('iframe.mail-html').locator('b').textContent(), POLL).toBe('Ada');
      expect(await page.title()).toBe('mailplane dashboard');
      await screenshot(page, kind, 'sandbox');

      // The overview counts and charts today's mail: a bar for the day's delivered message
      // (test/e2e/dashboard-overview.test.ts checks every figure against the API).
      await open(page, 'Overview');
      const processedToday = page
        .getByRole('table', { name: 'Every counter of the daily record' })
        .locator('tr[data-figure="processed"] td')
        .first();
      await expect.poll(() => processedToday.textContent(), POLL).toBe('1');
      expect(await page.locator('.chart-canvas rect.bar[data-series="delivered"]').count()).toBe(1);
      // The groups with mail are offered (no free text): as a scope, and to compare.
      expect(await page.getByLabel('Scope').locator('option').allTextContents()).toEqual([
        'Whole account',
        'Sub-account: Default',
        'Sub-account: Acme <b>Mail</b>',
        'Group: welcome',
      ]);
      // Every sub-account's 30-day totals side by side, and a chosen group's, as a table with row headers.
      await page.getByRole('group', { name: 'Groups to compare' }).getByLabel('welcome').check();
      await page.getByRole('button', { name: 'Compare' }).click();
      const compare = page.getByRole('table', { name: 'Last 30 days, totals by sub-account and group' });
      const processed = (name: string) => compare.getByRole('row', { name }).getByRole('cell').first().textContent();
      await expect
        .poll(() => compare.getByRole('rowheader').allTextContents(), POLL)
        .toEqual(['Sub-account: Default', 'Sub-account: Acme <b>Mail</b>', 'Group: welcome']);
      expect(await processed('Sub-account: Acme <b>Mail</b>')).toBe('1');
      expect(await processed('Group: welcome')).toBe('1');
      await screenshot(page, kind, 'overview');

      // A third-party sending provider (made with the API) to offer as a pool member.
      const relay = await api.call('POST', '/account/tpsp', {
        account: api.accountKey,
        body: {
          name: 'Relay <u>one</u>',
          type: 0,
          host: 'smtp.example.com',
          port: 587,
          security: 'starttls',
          username: 'u',
          password: 'p',
        },
      });
      expect(relay.status, relay.text).toBe(200);
      // The IPs and pools page reads both lists.
      await open(page, 'IPs and pools');
      await page.getByRole('heading', { name: 'IPs and pools' }).waitFor({ timeout: 10_000 });
      await expect.poll(() => page.getByText('Loading…').count(), POLL).toBe(0);
      // Create a pool, then edit it: overflow to the Shared pool (each a change with the CSRF token).
      const create = page.getByRole('form', { name: 'Create IP pool' });
      await create.getByLabel('Pool name').fill('Bulk <i>mail</i>');
      await create.getByRole('button', { name: 'Create pool' }).click();
      const pools = page.getByRole('table', { name: 'IP pools' });
      const bulk = () =>
        pools.getByRole('row').filter({ has: page.getByRole('cell', { name: 'Bulk <i>mail</i>', exact: true }) });
      await expect.poll(() => bulk().count(), POLL).toBe(1);
      expect(await bulk().getByRole('cell').nth(1).textContent()).toBe('Round robin');
      await page.getByRole('button', { name: 'Edit Bulk <i>mail</i>' }).click();
      const edit = page.getByRole('form', { name: 'Edit pool Bulk <i>mail</i>' });
      await edit.getByLabel('Overflow to another pool').check();
      await edit.getByLabel('Overflow pool').selectOption('Shared');
      await edit.getByRole('group', { name: 'Third-party sending providers' }).getByLabel('Relay <u>one</u>').check();
      await edit.getByRole('button', { name: 'Save pool Bulk <i>mail</i>' }).click();
      await expect.poll(() => bulk().getByRole('cell').nth(2).textContent(), POLL).toBe('to Shared');
      expect(await bulk().getByRole('cell').nth(3).textContent()).toBe('Relay <u>one</u>');
      await expect.poll(() => edit.count(), POLL).toBe(0);
      const stored = await api.call('GET', '/account/ippool', { account: api.accountKey });
      expect(stored.body.find((p: { name: string }) => p.name === 'Bulk <i>mail</i>')).toMatchObject({
        routingStrategy: 0,
        shouldOverflow: true,
        overflowPoolName: 'Shared',
        thirdPartySendingProviders: [{ id: relay.body.id }],
      });
      // Allocate an IP to the account, then delete the pool and release the IP (each confirmed).
      await page.getByLabel('IP addresses').fill('203.0.113.7');
      await page.getByRole('button', { name: 'Allocate', exact: true }).click();
      const ipTable = page.getByRole('table', { name: 'IPs' });
      await expect.poll(() => ipTable.getByRole('cell', { name: '203.0.113.7', exact: true }).count(), POLL).toBe(1);
      expect(
        (await api.call('GET', '/account/ip', { account: api.accountKey })).body.map(
          (ip: { publicIp: string }) => ip.publicIp,
        ),
      ).toContain('203.0.113.7');
      await screenshot(page, kind, 'ips');
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Delete Bulk <i>mail</i>' }).click();
      await expect.poll(() => bulk().count(), POLL).toBe(0);
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Release 203.0.113.7' }).click();
      await expect.poll(() => ipTable.count(), POLL).toBe(0);
      expect((await api.call('GET', '/account/ip', { account: api.accountKey })).body).toEqual([]);
      await page.waitForLoadState('networkidle');

      // Sign out: back to the sign-in form, and the session is gone on the server.
      await signOutOfDashboard(page);

      // A sub-account session opens the message's page straight from its address (no activity list first).
      await page.getByLabel('Account or sub-account API key').fill(subKey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Dashboard' }).waitFor({ timeout: 10_000 });
      // (the address still names the account's IPs page: the sub-account gets its overview instead)
      await page.getByRole('heading', { name: 'Overview' }).waitFor({ timeout: 10_000 });
      await page.waitForLoadState('networkidle');
      await page.goto(`${server.origin}/dashboard#/message/${messageId}`);
      const subTimeline = page.getByRole('list', { name: 'Events, oldest first' });
      await expect
        .poll(() => subTimeline.locator('li strong').allTextContents(), POLL)
        .toEqual(['Processed', 'Delivered'])
        .catch(async (error: unknown) => {
          // say what the page showed instead (an error note, another page, a failed request)
          throw new Error(`no timeline at ${page.url()}: ${problems.join('; ')} | ${await page.textContent('main')}`, {
            cause: error,
          });
        });
      await signOutOfDashboard(page);
      // The one console error is Chromium refusing the captured message's script: the proof that
      // the frame runs none. Nothing else went wrong.
      const blocked =
        "console: Blocked script execution in 'about:srcdoc' because the document's frame is sandboxed and the 'allow-scripts' permission is not set.";
      expect(problems).toEqual([blocked]);
    } finally {
      await context.close();
      await receiver.close();
    }
  }, 90_000);
});
