/**
 * `mailplane start`: the example server (examples/shared/run-server.ts) on plain `node:http`, or on
 * Express or Koa when asked and installed. Its flags are shorthands for the variables of the
 * configuration schema, so they are checked, and reported, exactly as the variables are.
 */
import { runExampleServer, type ExampleFramework } from '../../examples/shared/run-server.js';
import { stringFlag, UsageError, type CliCommand } from '../command.js';

/** Each value flag and the variable it sets. */
const FLAG_VARIABLES = {
  port: 'PORT',
  host: 'HOST',
  'database-url': 'MAILPLANE_DATABASE_URL',
  'data-dir': 'MAILPLANE_DATA_DIR',
  'public-url': 'MAILPLANE_PUBLIC_URL',
} as const;

/** The framework the flags ask for; two at once is a usage error. */
function frameworkOf(values: Record<string, unknown>): ExampleFramework {
  const asked = (['express', 'koa'] as const).filter((name) => values[name] === true);
  if (asked.length > 1) throw new UsageError('start: --express and --koa exclude each other');
  return asked[0] ?? 'node';
}

/** `mailplane start`. */
export const command: CliCommand = {
  name: 'start',
  summary: 'run the mailplane server (API, dashboard, jobs; SMTP when configured)',
  positionals: { min: 0, max: 0, names: '' },
  options: {
    express: { type: 'boolean' },
    koa: { type: 'boolean' },
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    'database-url': { type: 'string' },
    'data-dir': { type: 'string' },
    'public-url': { type: 'string' },
    sandbox: { type: 'boolean' },
    live: { type: 'boolean' },
  },
  help: `Usage: mailplane start [flags]

Runs the mailplane server: the /api/v1 API, tracking links (/t), the dashboard (/dashboard),
/healthz and /readyz, background jobs, and the SMTP listeners the configuration asks for. Every
setting comes from the environment (the README's table, \`mailplane config\`); the flags below set
those variables. On first start it creates the account and prints its key once. Ctrl-C (SIGINT)
or SIGTERM stops it cleanly.

It serves on plain node:http by default, which needs no framework; --express and --koa mount the
same handlers on Express or Koa, which must be installed (npm install express, npm install koa).

Flags:
  -p, --port PORT        HTTP port (PORT; default 3000, 0 picks a free one)
  --host HOST            address to listen on (HOST; default 127.0.0.1)
  --database-url URL     sqlite:./file.db or postgres://… (MAILPLANE_DATABASE_URL)
  --data-dir DIR         where the generated secret is kept (MAILPLANE_DATA_DIR)
  --public-url URL       the server's public base URL (MAILPLANE_PUBLIC_URL)
  --sandbox              sandbox mode: local DNS and mail catcher (MAILPLANE_SANDBOX=1)
  --live                 real DNS and delivery (MAILPLANE_SANDBOX=0)
  --express              serve on Express
  --koa                  serve on Koa
  -h, --help             this help

Exit status: it runs until stopped, then 0 (1 if closing failed); 1 when it cannot start (a bad
variable, a port in use, a database that cannot be reached, a missing framework); 2 a usage error.

Examples:
  npx mailplane start
  npx mailplane start --koa --port 8080 --database-url postgres://mailplane@localhost/mailplane`,
  run: async ({ values, env }) => {
    const framework = frameworkOf(values);
    if (values.sandbox === true && values.live === true)
      throw new UsageError('start: --sandbox and --live exclude each other');
    const serverEnv: NodeJS.ProcessEnv = { ...env };
    for (const [flag, variable] of Object.entries(FLAG_VARIABLES)) {
      const value = stringFlag(values, flag);
      if (value !== undefined) serverEnv[variable] = value;
    }
    if (values.sandbox === true) serverEnv.MAILPLANE_SANDBOX = '1';
    if (values.live === true) serverEnv.MAILPLANE_SANDBOX = '0';
    await runExampleServer({ framework, env: serverEnv });
    return 'running';
  },
};
