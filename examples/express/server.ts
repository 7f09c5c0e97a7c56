/**
 * The Express example: the full `/api/v1` surface on the embedded SQLite default.
 * Run with `npm start` (or `npx mailplane start --express`); configuration comes from the
 * environment (see the README). What it serves is in ../shared/run-server.ts.
 */
import { runExampleServer } from '../shared/run-server.js';

await runExampleServer({ framework: 'express' });
