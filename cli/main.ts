#!/usr/bin/env node
/**
 * `mailplane`, the command line (docs/cli.md): finds the command, parses its flags with
 * `util.parseArgs`, runs it and exits with its status: 0 done, 1 the operation failed, 2 the
 * command line was wrong. A command's module is loaded only when it runs, so `--help` and a usage
 * error answer without loading the library.
 */
import { EXIT, parseCommandArgs, reportUsageError, UsageError, type CliCommand } from './command.js';

/** Every command: its one-line summary and how to load it. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<{ command: CliCommand }> }> = {
  start: { summary: 'run the server (API, dashboard, background jobs)', load: () => import('./commands/start.js') },
  migrate: { summary: 'apply pending database migrations and exit', load: () => import('./commands/migrate.js') },
  'account-key': {
    summary: 'show whether the account key is set; --rotate issues a new one',
    load: () => import('./commands/account-key.js'),
  },
  domain: {
    summary: "domain check NAME: a sending domain's DNS records, found or missing",
    load: () => import('./commands/domain.js'),
  },
  send: { summary: 'send a test email through the running server', load: () => import('./commands/send.js') },
  tail: { summary: "follow the account's events as lines or NDJSON", load: () => import('./commands/tail.js') },
  config: { summary: 'print the effective configuration, secrets masked', load: () => import('./commands/config.js') },
};

/** `mailplane --help`. */
function overview(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, { summary }]) => `  ${name.padEnd(width)}  ${summary}`);
  return `Usage: mailplane COMMAND [flags]

Commands:
${lines.join('\n')}

Every command reads the configuration of \`mailplane start\` from the environment (MAILPLANE_*,
PORT, HOST; see \`mailplane config\`) and takes --help. Commands that talk to a running server
(domain, send, tail) take --url and the account key from MAILPLANE_ACCOUNT_API_KEY (or --key).

Exit status: 0 success; 1 the operation failed; 2 a usage error (unknown command or flag, a
missing argument).

Documentation: docs/cli.md`;
}

/** Runs the command line `args` (without `node` and the script); resolves with the exit status, or `'running'`. */
export async function main(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number | 'running'> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? console.error : console.log)(overview());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  let command: CliCommand | undefined;
  try {
    if (!entry) throw new UsageError(`unknown command ${JSON.stringify(name)} (${Object.keys(COMMANDS).join(', ')})`);
    command = (await entry.load()).command;
    const parsed = parseCommandArgs(command, rest);
    if (parsed.values.help === true) {
      console.log(command.help);
      return EXIT.ok;
    }
    return await command.run({ ...parsed, env });
  } catch (error) {
    // failure.ts is loaded only for a failure other than usage: it reads the configuration's schema,
    // which loads the library.
    const { lines, exitCode } =
      error instanceof UsageError
        ? reportUsageError(error, command?.name)
        : (await import('./failure.js')).reportFailure(error, command?.name);
    for (const line of lines) console.error(line);
    return exitCode;
  }
}

const status = await main(process.argv.slice(2));
// Exits at once: an open pool or a timer of the library must not keep a finished command alive.
if (status !== 'running') process.exit(status);
