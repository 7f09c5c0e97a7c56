/**
 * The Koa example: the full `/api/v1` surface on the embedded SQLite default.
 * Run with `npm run start:koa` (or `npx mailplane start --koa`); configuration comes from the
 * environment (see the README). What it serves is in ../shared/run-server.ts.
 */
import { runExampleServer } from '../shared/run-server.js';

await runExampleServer({ framework: 'koa' });
