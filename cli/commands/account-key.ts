/**
 * `mailplane account-key`: whether the account exists with a key, and `--rotate` to replace the
 * key with a new one, printed once. It works on the database directly (as the server does at
 * start), so it is the way back in when the printed key was lost. The stored key is hashed and
 * sealed: it is never printed, only a new one is.
 */
import { consoleLogger, createMailplane, generateAccountKey, silentLogger, type MailplaneStore } from 'mailplane';
import { openExampleStore, warnOnce } from '../../examples/shared/startup.js';
import { CommandFailure, EXIT, type CliCommand } from '../command.js';
import { existingSecret, readVariables } from '../environment.js';

/** The variables this command reads. */
const VARIABLES = [
  'MAILPLANE_DATABASE_URL',
  'MAILPLANE_SECRET',
  'MAILPLANE_DATA_DIR',
  'MAILPLANE_ACCOUNT_API_KEY',
] as const;

/** Prints whether the account has its key; 1 when there is no account yet. */
async function show(store: MailplaneStore, configuredKey: string | undefined): Promise<number> {
  const account = await store.accounts.first();
  if (!account) {
    console.log('mailplane: no account yet: the first `mailplane start` creates it and prints its key once');
    return EXIT.failed;
  }
  const created = new Date(Number(BigInt(account.created) / 1_000_000n)).toISOString();
  console.log(`mailplane: an account key is set (account ${JSON.stringify(account.name)}, created ${created})`);
  if (configuredKey !== undefined)
    console.log('mailplane: MAILPLANE_ACCOUNT_API_KEY is set here: a server started with it makes it the account key');
  return EXIT.ok;
}

/** Replaces the account key with a new one and prints it once. */
async function rotate(store: MailplaneStore, secret: string, configuredKey: string | undefined): Promise<number> {
  // The instance checks the secret against the database before it writes a key sealed under it.
  const mailplane = createMailplane({ store, secret, logger: silentLogger });
  try {
    if (!(await store.accounts.first()))
      throw new CommandFailure('no account yet: the first `mailplane start` creates it and prints its key once');
    const apiKey = generateAccountKey();
    await mailplane.ensureAccount({ apiKey });
    console.log(`mailplane: new account API key (shown once, keep it): ${apiKey}`);
    console.log('mailplane: the previous key is refused from now on, by every server on this database');
    if (configuredKey !== undefined) {
      console.error(
        'mailplane: warning: MAILPLANE_ACCOUNT_API_KEY is set here: a server started with it makes it the key again; ' +
          'set it to the new key, or unset it',
      );
    }
    return EXIT.ok;
  } finally {
    await mailplane.close();
  }
}

/** `mailplane account-key`. */
export const command: CliCommand = {
  name: 'account-key',
  summary: 'show whether the account key is set; --rotate issues a new one',
  positionals: { min: 0, max: 0, names: '' },
  options: { rotate: { type: 'boolean' } },
  help: `Usage: mailplane account-key [--rotate]

Without flags: says whether the account exists with its key, in the database of
MAILPLANE_DATABASE_URL. The key itself is never shown: only its hash and a sealed copy are stored.

--rotate replaces the key with a new one and prints it once; the old key is refused at once, by
every server on the database. It needs the instance secret: MAILPLANE_SECRET, else the file
"secret" in MAILPLANE_DATA_DIR that the server generated (the same environment as the server's).

Flags:
  --rotate     issue a new account key (printed once) in place of the current one
  -h, --help   this help

Exit status: 0 a key is set (or was rotated); 1 no account yet, a bad variable, an unreachable
database or another secret than the database's; 2 a usage error.

Example:
  MAILPLANE_DATA_DIR=./data mailplane account-key --rotate`,
  run: async ({ values, env }) => {
    const config = readVariables(env, VARIABLES);
    // Checked before the database is opened: a rotation without the secret changes nothing.
    const secret = values.rotate === true ? existingSecret(config) : undefined;
    const store = await openExampleStore(config.MAILPLANE_DATABASE_URL, warnOnce(consoleLogger));
    if (secret === undefined) {
      try {
        return await show(store, config.MAILPLANE_ACCOUNT_API_KEY);
      } finally {
        await store.close();
      }
    }
    return rotate(store, secret, config.MAILPLANE_ACCOUNT_API_KEY);
  },
};
