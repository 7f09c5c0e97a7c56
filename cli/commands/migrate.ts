/**
 * `mailplane migrate`: brings the database of `MAILPLANE_DATABASE_URL` to the latest schema, as
 * the server does when it starts (examples/shared/startup.ts `openExampleStore`), without
 * starting anything: for a deployment that migrates in a step of its own.
 */
import { consoleLogger } from 'mailplane';
import { mailplaneMigrations, parseDatabaseUrl } from 'mailplane/storage/kysely';
import { openExampleStore, warnOnce } from '../../examples/shared/startup.js';
import { EXIT, type CliCommand } from '../command.js';
import { readVariables } from '../environment.js';

/** `mailplane migrate`. */
export const command: CliCommand = {
  name: 'migrate',
  summary: 'apply pending database migrations and exit',
  positionals: { min: 0, max: 0, names: '' },
  options: {},
  help: `Usage: mailplane migrate

Applies every pending migration to the database of MAILPLANE_DATABASE_URL (SQLite or PostgreSQL)
and exits. \`mailplane start\` migrates too; this is for a deployment step that migrates once
before several servers start. Running it again is harmless.

Flags:
  -h, --help   this help

Exit status: 0 the database is at the latest schema; 1 a bad variable, a database that cannot be
reached, or a migration that failed; 2 a usage error.

Example:
  MAILPLANE_DATABASE_URL=postgres://mailplane@db.internal/mailplane mailplane migrate`,
  run: async ({ env }) => {
    const { MAILPLANE_DATABASE_URL: url } = readVariables(env, ['MAILPLANE_DATABASE_URL'] as const);
    const store = await openExampleStore(url, warnOnce(consoleLogger));
    await store.close();
    const migrations = Object.keys(await mailplaneMigrations(parseDatabaseUrl(url).dialect).getMigrations()).sort();
    const dialect = url.startsWith('sqlite:') ? 'SQLite' : 'PostgreSQL';
    console.log(`mailplane: the ${dialect} database is at the latest schema (last migration: ${migrations.at(-1)})`);
    return EXIT.ok;
  },
};
