/**
 * A Node `--import` module that makes the packages named in MAILPLANE_TEST_HIDE_PACKAGES
 * (comma-separated) fail to resolve exactly as an uninstalled package does (ERR_MODULE_NOT_FOUND),
 * so a test can run the real CLI as on a machine without an optional peer dependency.
 */
import { register } from 'node:module';
import process from 'node:process';

const hidden = (process.env.MAILPLANE_TEST_HIDE_PACKAGES ?? '').split(',').filter(Boolean);
register('./hide-packages-hooks.mjs', import.meta.url, { data: { hidden } });
