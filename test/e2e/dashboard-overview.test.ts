/**
 * The overview's figures and chart in headless Chromium (Debian's `chromium`, playwright-core), on
 * SQLite and PostgreSQL (issue 31, items 2 and 3). A real instance with the sandbox sends a mix
 * (delivered, opened, clicked, a spam complaint, a hard bounce, a soft bounce still in retry, a drop
 * for a suppressed address and one for an unverified sender); the overview's every counter, its
 * breakdown (adding up to processed) and its rates must equal `GET /account/stat` and
 * `GET /subaccount/stat` to the unit. The one-day chart is bars in proportion to the counts, a
 * series hides and shows again, the axes are in the browser's locale (German here), and a year
 * draws as step lines.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { simpleParser } from 'mailparser';
import { startSandbox } from 'mailplane';
import type { Browser, Page } from 'playwright-core';
import { mxTransport } from '../../adapters/transport/smtp/index.js';
import { createTestApi, type TestApi } from '../support/api.js';
import {
  BROWSER_POLL,
  chromiumSkipNote,
  haveChromium,
  launchChromium,
  signInToDashboard,
  watchPageProblems,
} from '../support/chromium.js';
import { startDashboardServer, type DashboardServer } from '../support/dashboard-server.js';

const COUNTERS = [
  'processed',
  'sent',
  'dropped',
  'smtpDropped',
  'delivered',
  'softBounced',
  'hardBounced',
  'opened',
  'clicked',
  'unsubscribed',
  'spam',
] as const;
type Stat = Record<(typeof COUNTERS)[number], number>;
const LOCALE = 'de-DE';

let browser: Browser | undefined;
let api: TestApi | undefined;
let server: DashboardServer | undefined;
beforeAll(async () => {
  if (haveChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await server?.close();
  await api?.close();
  api = server = undefined;
});

const today = () => new Date().toISOString().slice(0, 10);
const minus = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
/** Intl's spaces (no-break, narrow no-break) as plain ones: Node's and Chromium's ICU may pick either. */
const plain = (text: string | null) => (text ?? '').replace(/[\s\u00a0\u202f]+/g, ' ').trim();
const rate = (part: number, whole: number) =>
  whole > 0
    ? plain(new Intl.NumberFormat(LOCALE, { style: 'percent', maximumFractionDigits: 1 }).format(part / whole))
    : '—';

/** A table of the overview's figures, each row's cells by its `data-figure`. */
async function figures(page: Page, caption: string): Promise<Record<string, string[]>> {
  const rows = page.getByRole('table', { name: caption }).locator('tr[data-figure]');
  const out: Record<string, string[]> = {};
  for (const row of await rows.all())
    out[(await row.getAttribute('data-figure'))!] = (await row.locator('td').allTextContents()).map(plain);
  return out;
}

/** What the overview must show for today's record and the period's. */
function expected(day: Stat, period: Stat) {
  const columns = [day, period];
  const count = (n: number) => new Intl.NumberFormat(LOCALE).format(n);
  const inFlight = (s: Stat) => s.processed - s.delivered - s.dropped - s.smtpDropped - s.hardBounced;
  return {
    counters: Object.fromEntries(COUNTERS.map((key) => [key, columns.map((s) => count(s[key]))])),
    outcomes: {
      delivered: columns.map((s) => count(s.delivered)),
      dropped: columns.map((s) => count(s.dropped)),
      smtpDropped: columns.map((s) => count(s.smtpDropped)),
      hardBounced: columns.map((s) => count(s.hardBounced)),
      inFlight: columns.map((s) => count(inFlight(s))),
      processed: columns.map((s) => count(s.processed)),
    },
    rates: {
      'Delivery rate': columns.map((s) => rate(s.delivered, s.processed)),
      'Open rate': columns.map((s) => rate(s.opened, s.delivered)),
      'Click rate': columns.map((s) => rate(s.clicked, s.delivered)),
      'Bounce rate': columns.map((s) => rate(s.hardBounced + s.softBounced, s.processed)),
    },
  };
}

/** The overview's three tables, read as {@link expected} describes them. */
const shown = async (page: Page) => ({
  counters: await figures(page, 'Every counter of the daily record'),
  outcomes: await figures(page, 'Where the processed mail went'),
  rates: await figures(page, 'Rates'),
});

/** The daily record of today and the 30 days' sum, as `path` (a daily `/stat` endpoint) answers them. */
async function fromApi(path: string, key: { account?: string; sub?: string }): Promise<[Stat, Stat]> {
  const answer = await api!.call('GET', path, { ...key, query: { from: minus(29), to: today() } });
  expect(answer.status, answer.text).toBe(200);
  const days = answer.body as { date: string; stat: Stat }[];
  const sum = Object.fromEntries(COUNTERS.map((k) => [k, days.reduce((n, d) => n + d.stat[k], 0)])) as Stat;
  return [days.at(-1)!.stat, sum];
}

// SQLite only: the pages read the API, which both stores serve alike (the API and conformance tests
// run on both); dashboard-browser.test.ts walks the dashboard on PostgreSQL as well.
describe.skipIf(!haveChromium).each(['sqlite'] as const)(
  `dashboard overview in Chromium (%s)${chromiumSkipNote}`,
  (kind) => {
    it('shows every counter, the outcomes adding up to processed and the rates exactly as the API, and charts them', async () => {
      const sandbox = await startSandbox();
      api = await createTestApi(kind, {
        sandbox,
        // defer@'s first retry is far away: its soft bounce stays in retry for the whole test.
        delivery: {
          retryDelaysMs: [600_000],
          connectionTimeoutMs: 3000,
          greetingTimeoutMs: 3000,
          socketTimeoutMs: 3000,
        },
        jobs: { pollIntervalMs: 25 },
        transport: (ctx) =>
          mxTransport({ resolver: ctx.resolver, port: ctx.delivery.mxPort, ehloName: 'mta.mailplane.test' }),
      });
      api.mailplane.start();
      const a = api;
      const account = { account: a.accountKey };
      const acme = await a.call('POST', '/account/subaccount', { ...account, body: { name: 'acme' } });
      const sub = acme.body.apiKey as string;
      const domain = await a.call('POST', '/subaccount/domain', { sub, body: { name: 'acme.test' } });
      expect((await a.call('POST', `/subaccount/domain/${domain.body.id}/verify`, { sub })).body.verified).toBe(true);
      await a.call('POST', '/subaccount/suppression', { sub, body: { manual: [{ email: 'gone@example.com' }] } });
      // A second sub-account without a verified domain: its mail is dropped, and counts for the account only.
      const beta = await a.call('POST', '/account/subaccount', { ...account, body: { name: 'beta' } });

      const recipients = ['ada@example.com', 'bob@example.com', 'complaint@example.com', 'bounce@example.com'];
      const sent = await a.call('POST', '/subaccount/email', {
        sub,
        body: {
          from: { email: 'news@acme.test' },
          to: [...recipients, 'defer@example.com', 'gone@example.com'].map((email) => ({ email })),
          subject: 'Autumn news',
          htmlBody: '<p>Hello, see <a href="https://shop.example/autumn">the shop</a></p>',
          trackOpens: true,
          trackClicks: true,
        },
      });
      expect(sent.status, sent.text).toBe(200);
      const idOf = (to: string) =>
        (sent.body as { to: string; messageId: string }[]).find((s) => s.to === to)!.messageId;
      const other = await a.call('POST', '/subaccount/email', {
        sub: beta.body.apiKey,
        body: { from: { email: 'news@beta.test' }, to: [{ email: 'cy@example.com' }], subject: 'Hi', textBody: 'Hi' },
      });
      expect(other.status, other.text).toBe(200);

      // Every outcome recorded: deliveries, the hard bounce, the soft bounce waiting for its retry, the complaint.
      const statusOf = async (to: string) => (await a.call('GET', `/account/message/${idOf(to)}`, account)).body.status;
      await vi.waitFor(
        async () => {
          const statuses = await Promise.all([...recipients, 'defer@example.com', 'gone@example.com'].map(statusOf));
          expect(statuses).toEqual(['delivered', 'delivered', 'delivered', 'hard_bounced', 'deferred', 'dropped']);
        },
        { timeout: 20_000, interval: 100 },
      );
      // Ada opens and clicks, Bob only opens: through the links of the mail the catcher captured.
      const captured = (await a.call('GET', '/account/sandbox/message', { ...account, query: { limit: '50' } })).body;
      const htmlOf = async (to: string) => {
        const item = (captured as { id: number; messageId: string }[]).find((m) => m.messageId === idOf(to))!;
        const raw = (await a.call('GET', `/account/sandbox/message/${item.id}`, account)).body.raw as string;
        return String((await simpleParser(raw)).html);
      };
      const follow = (url: string) =>
        a.mailplane.handleLinks({
          method: 'GET',
          path: new URL(url).pathname.replace(/^\/t/, ''),
          headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36' },
          query: new URL(url).searchParams,
        });
      for (const [to, click] of [['ada@example.com', true] as const, ['bob@example.com', false] as const]) {
        const html = await htmlOf(to);
        expect((await follow(/<img src="([^"]+)"/.exec(html)![1]!)).status).toBe(200);
        if (click) expect(Math.floor((await follow(/<a href="([^"]+)"/.exec(html)![1]!)).status / 100)).toBe(3);
      }
      await vi.waitFor(
        async () => {
          const [day] = await fromApi('/subaccount/stat', { sub });
          expect(day).toMatchObject({ processed: 6, dropped: 1, delivered: 3, hardBounced: 1, softBounced: 1 });
          expect(day).toMatchObject({ opened: 2, clicked: 1, spam: 1 });
        },
        { timeout: 40_000, interval: 200 },
      );

      server = await startDashboardServer(a);
      const context = await browser!.newContext({ locale: LOCALE, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const problems = watchPageProblems(page);
      try {
        // The whole account: GET /account/stat (two sub-accounts' mail).
        await signInToDashboard(page, server.origin, a.accountKey);
        const [accountDay, accountPeriod] = await fromApi('/account/stat', account);
        expect(accountDay).toMatchObject({ processed: 7, dropped: 2 });
        await expect.poll(() => shown(page), BROWSER_POLL).toEqual(expected(accountDay, accountPeriod));
        // In flight is the soft bounce still in retry, and the outcomes add up to processed.
        const outcomes = await figures(page, 'Where the processed mail went');
        expect(outcomes.inFlight).toEqual(['1', '1']);
        const parts = ['delivered', 'dropped', 'smtpDropped', 'hardBounced', 'inFlight'];
        expect(parts.reduce((n, part) => n + Number(outcomes[part]![0]), 0)).toBe(Number(outcomes.processed![0]));

        // One sub-account: GET /subaccount/stat.
        await page.getByLabel('Scope').selectOption({ label: 'Sub-account: acme' });
        const [subDay, subPeriod] = await fromApi('/subaccount/stat', { sub });
        await expect.poll(() => shown(page), BROWSER_POLL).toEqual(expected(subDay, subPeriod));

        await page.screenshot({ path: `test-results/dashboard-${kind}-overview-figures.png`, fullPage: true });
        // Today alone: one group of bars, heights in proportion to the counts, side by side.
        await page.getByLabel('Period').selectOption({ label: 'Today (UTC)' });
        const chart = page.locator('.chart-canvas');
        await expect.poll(() => chart.getAttribute('data-points'), BROWSER_POLL).toBe('1');
        expect(await chart.getAttribute('data-mode')).toBe('bars');
        const bars = async () =>
          Promise.all(
            (await chart.locator('rect.bar').all()).map(async (bar) => ({
              series: (await bar.getAttribute('data-series'))!,
              value: Number(await bar.getAttribute('data-value')),
              x: Number(await bar.getAttribute('x')),
              width: Number(await bar.getAttribute('width')),
              height: Number(await bar.getAttribute('height')),
            })),
          );
        const drawn = await bars();
        // The shown series with mail today (Processed, Dropped, Delivered, Soft- and Hard-bounced, Opened, Clicked).
        expect(drawn.map((b) => [b.series, b.value])).toEqual([
          ['processed', 6],
          ['dropped', 1],
          ['delivered', 3],
          ['softBounced', 1],
          ['hardBounced', 1],
          ['opened', 2],
          ['clicked', 1],
        ]);
        const unit = drawn[0]!.height / 6;
        expect(unit).toBeGreaterThan(20);
        for (const bar of drawn) expect(bar.height).toBeCloseTo(bar.value * unit, 0);
        for (let i = 1; i < drawn.length; i++) {
          expect(drawn[i]!.width).toBeGreaterThan(20);
          expect(drawn[i]!.x).toBeGreaterThanOrEqual(drawn[i - 1]!.x + drawn[i - 1]!.width - 0.01);
        }
        // The date under the axis is in the browser's locale.
        await page.locator('figure.chart').screenshot({ path: `test-results/dashboard-${kind}-overview-today.png` });
        const dayText = new Intl.DateTimeFormat(LOCALE, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(
          new Date(),
        );
        expect((await chart.locator('.axis.x text').allTextContents()).map(plain)).toEqual([plain(dayText)]);

        // A series hides and shows again with its button.
        const delivered = page
          .getByRole('group', { name: 'Series shown in the chart' })
          .getByRole('button', { name: 'Delivered' });
        expect(await delivered.getAttribute('aria-pressed')).toBe('true');
        await delivered.click();
        expect(await delivered.getAttribute('aria-pressed')).toBe('false');
        await expect.poll(async () => (await bars()).map((b) => b.series), BROWSER_POLL).not.toContain('delivered');
        expect((await bars()).length).toBe(6);
        await delivered.click();
        await expect.poll(async () => (await bars()).map((b) => b.series), BROWSER_POLL).toContain('delivered');

        // A year: 12 daily requests, drawn as step lines, one per shown series; its table has every day.
        await page.getByLabel('Period').selectOption({ label: 'Last 365 days' });
        await expect.poll(() => chart.getAttribute('data-points'), { timeout: 20_000 }).toBe('365');
        expect(await chart.getAttribute('data-mode')).toBe('steps');
        expect(await chart.locator('g.step').count()).toBe(7);
        await page.locator('figure.chart').screenshot({ path: `test-results/dashboard-${kind}-overview-year.png` });
        await page.getByText("The chart's figures as a table").click();
        const table = page.getByRole('table', { name: "Last 365 days: the chart's figures, day by day" });
        expect(await table.locator('tbody tr').count()).toBe(365);
        await expect
          .poll(() => figures(page, 'Every counter of the daily record'), BROWSER_POLL)
          .toMatchObject({ processed: ['6', '6'] });
        await page.waitForLoadState('networkidle');
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 120_000);
  },
);
