/**
 * Headless Chromium for the dashboard's browser tests: Debian's `chromium` package driven by
 * playwright-core (no browser download), with the watcher and sign-in every such test repeats.
 * A test skips its `describe` with {@link haveChromium} when the browser is not installed
 * (`.ci/run` installs it) and names the reason with {@link chromiumSkipNote}.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where Debian's `chromium` package installs the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Whether the browser is installed; the browser tests skip without it. */
export const haveChromium = existsSync(CHROMIUM_PATH);

/** Appended to a `describe`'s title: empty when the browser is there, the reason for skipping when not. */
export const chromiumSkipNote = haveChromium ? '' : ` (skipped: no ${CHROMIUM_PATH})`;

/** How long a page may take to show what a test waits for (the machine may be loaded). */
export const BROWSER_POLL = { timeout: 10_000 };

/** Starts headless Chromium; the caller closes it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
}

/**
 * Collects everything `page` reports going wrong: console errors, uncaught exceptions, requests
 * that fail (not merely a read the browser cancelled) and answers of 400 or more. The returned list
 * fills as the page runs; a test expects it empty at the end.
 */
export function watchPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText;
    // A read the browser cancels because the page moved on (a reload, a click to another page) is no
    // failure a user sees; CI on PostgreSQL once caught the webhook list's re-read in that state. A
    // cancelled write is still reported: the test moved on before the page finished its work.
    if (reason === 'net::ERR_ABORTED' && request.method() === 'GET') return;
    problems.push(`request failed: ${request.method()} ${request.url()} ${reason}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  return problems;
}

/** Signs in to the dashboard at `origin` with `key` and waits for its navigation. */
export async function signInToDashboard(page: Page, origin: string, key: string): Promise<void> {
  await page.goto(`${origin}/dashboard`);
  await page.getByLabel('Account or sub-account API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Dashboard' }).waitFor(BROWSER_POLL);
}

/**
 * Signs out through the dashboard's button and waits for the sign-in form, so the sign-out's
 * request has finished before the test goes anywhere else (navigating sooner cancels it).
 */
export async function signOutOfDashboard(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Account or sub-account API key').waitFor(BROWSER_POLL);
}

/**
 * Opens a page from the dashboard's navigation by its link's name. The caller waits for something
 * of the new page before acting: the old page's controls may still be there for a moment.
 */
export async function openDashboardPage(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();
}
