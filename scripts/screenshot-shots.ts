/**
 * The images of the README and docs/ that `npm run screenshots` (scripts/screenshots.ts) writes to
 * `docs/images/`: each one's file, viewport width, and how the signed-in dashboard is brought to
 * what its caption says. test/unit/doc-links.test.ts checks that the documents show exactly these.
 */
import type { Page } from 'playwright-core';
import type { SeededSandbox } from './screenshot-seed.js';
import { BROWSER_POLL, openDashboardPage } from '../test/support/chromium.js';

/** One image: its file under docs/images/, the viewport width, and how to bring the page to it. */
export interface Shot {
  file: string;
  width: number;
  /** The whole page (else the viewport alone, scrolled to the top). */
  fullPage: boolean;
  show(page: Page, seeded: SeededSandbox): Promise<void>;
}

/** The viewport's height, and its width on a desktop and on a phone. */
export const VIEWPORT = { height: 800, desktop: 1280, phone: 390 } as const;

/**
 * The overview, where sign-in lands, for the last 7 days (the seeded mail is all of today: a week's
 * bars are wide enough to read), once its counters have answered and the chart is drawn, with the
 * seeded group compared. Not opened
 * from the navigation: that moves focus, and the scroll, to the content.
 */
async function showOverview(page: Page): Promise<void> {
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor(BROWSER_POLL);
  await page.getByLabel('Period').selectOption({ label: 'Last 7 days' });
  await page.getByRole('columnheader', { name: 'Last 7 days' }).first().waitFor(BROWSER_POLL);
  await page
    .getByRole('table', { name: 'Every counter of the daily record' })
    .locator('tr[data-figure="processed"] td')
    .first()
    .filter({ hasNotText: /^\s*0\s*$/ })
    .waitFor(BROWSER_POLL);
  await page.locator('svg').first().waitFor(BROWSER_POLL);
  // The seeded newsletter's group as a row of the comparison table, beside the sub-accounts.
  await page.getByRole('checkbox', { name: 'autumn-news' }).check();
  await page.getByRole('button', { name: 'Compare' }).click();
  await page.getByRole('rowheader', { name: /Group: autumn-news/ }).waitFor(BROWSER_POLL);
}

/** The activity page listing the latest messages of every sub-account. */
async function showActivity(page: Page): Promise<void> {
  await openDashboardPage(page, 'Activity');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('cell', { name: 'Hooli', exact: true }).first().waitFor(BROWSER_POLL);
}

/** A delivered, opened and clicked message's page: its names and whole timeline. */
async function showMessage(page: Page, seeded: SeededSandbox): Promise<void> {
  await page.goto(`${new URL(page.url()).origin}/dashboard#/message/${seeded.engagedMessageId}`);
  const timeline = page.getByRole('list', { name: 'Events, oldest first' });
  await timeline.getByText('Click', { exact: false }).first().waitFor(BROWSER_POLL);
}

/** The images the README and docs/ show, in the order they are taken. */
export const SHOTS: Shot[] = [
  { file: 'dashboard-overview.png', width: VIEWPORT.desktop, fullPage: true, show: showOverview },
  { file: 'dashboard-overview-phone.png', width: VIEWPORT.phone, fullPage: false, show: showOverview },
  { file: 'dashboard-activity.png', width: VIEWPORT.desktop, fullPage: false, show: showActivity },
  { file: 'dashboard-message.png', width: VIEWPORT.desktop, fullPage: true, show: showMessage },
];
