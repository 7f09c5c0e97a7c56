/**
 * `npm run screenshots`: regenerates the images of the README and docs/ (`docs/images/*.png`) from
 * a seeded sandbox. It starts the Express example in sandbox mode on a fresh temporary SQLite
 * database (test/support/example-server.ts), fills it through the API (scripts/screenshot-seed.ts),
 * signs in to the dashboard with the printed key in Debian's Chromium (test/support/chromium.ts) and
 * captures each page at a fixed viewport, locale and time zone, so a rerun changes little but the dates.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { seedSandbox, type SeededSandbox } from './screenshot-seed.js';
import { SHOTS, VIEWPORT, type Shot } from './screenshot-shots.js';
import {
  CHROMIUM_PATH,
  haveChromium,
  launchChromium,
  signInToDashboard,
  watchPageProblems,
} from '../test/support/chromium.js';
import { startExample } from '../test/support/example-server.js';

const imagesDir = fileURLToPath(new URL('../docs/images/', import.meta.url));

/** Takes `shot` in a fresh signed-in browser context; answers what went wrong on the page, if anything. */
async function capture(browser: Browser, origin: string, accountKey: string, shot: Shot, seeded: SeededSandbox) {
  const context = await browser.newContext({
    viewport: { width: shot.width, height: VIEWPORT.height },
    deviceScaleFactor: 1,
    locale: 'en-US',
    timezoneId: 'UTC',
    colorScheme: 'light',
  });
  try {
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    await signInToDashboard(page, origin, accountKey);
    await shot.show(page, seeded);
    await page.waitForLoadState('networkidle');
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: `${imagesDir}${shot.file}`, fullPage: shot.fullPage, animations: 'disabled' });
    return problems;
  } finally {
    await context.close();
  }
}

/** Starts the sandbox, seeds it and writes every image; the server and browser are closed however it ends. */
async function main(): Promise<void> {
  if (!haveChromium) throw new Error(`no ${CHROMIUM_PATH}: install Debian's chromium package`);
  mkdirSync(imagesDir, { recursive: true });
  // Sandbox on whatever the caller's environment says, and blank (unset) what would change the seeding:
  // a fixed key is not printed, another public URL takes the tracking links elsewhere, no workers no
  // delivery. The first retry of defer@ is 10 minutes away, so its soft bounce is seen in flight.
  const server = await startExample('express', {
    MAILPLANE_SANDBOX: '1',
    MAILPLANE_ACCOUNT_API_KEY: '',
    MAILPLANE_PUBLIC_URL: '',
    MAILPLANE_WORKERS: '',
    MAILPLANE_RETRY_DELAYS_MS: '10m',
    MAILPLANE_LOG_LEVEL: 'warn',
  });
  let browser: Browser | undefined;
  try {
    const seeded = await seedSandbox(server.baseUrl, server.accountKey);
    browser = await launchChromium();
    const origin = new URL(server.baseUrl).origin;
    for (const shot of SHOTS) {
      const problems = await capture(browser, origin, server.accountKey, shot, seeded);
      console.log(`docs/images/${shot.file}${problems.length ? ` (page problems: ${problems.join('; ')})` : ''}`);
    }
  } finally {
    await browser?.close();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`screenshots: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
