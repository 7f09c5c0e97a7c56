/**
 * The configuration the CLI reads, through the example servers' schema
 * (examples/shared/config-schema.ts): the same variables, defaults and error lines. A command reads
 * only the variables it uses, so a client command does not fail on a TLS file it never opens.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ConfigurationError,
  parseEnvironment,
  type ConfigValues,
  type ConfigVariableName,
} from '../examples/shared/config-schema.js';
import { localUrlOf } from '../examples/shared/startup.js';
import { CommandFailure, stringFlag, type ParsedArgs } from './command.js';

/**
 * The values of `names` from `env`; throws a {@link ConfigurationError} naming every bad one of
 * them. The other variables are left to the commands that use them.
 */
export function readVariables<Name extends ConfigVariableName>(
  env: NodeJS.ProcessEnv,
  names: readonly Name[],
): Pick<ConfigValues, Name> {
  const parsed = parseEnvironment(Object.fromEntries(names.map((name) => [name, env[name]])));
  if (!parsed.ok) throw new ConfigurationError(parsed.problems);
  return parsed.values;
}

/** Where a client command finds the server and which account key it sends. */
export interface ServerAccess {
  /** The server's base URL, without `/api/v1` and without a trailing `/`. */
  baseUrl: string;
  /** The account key (`--key`, else `MAILPLANE_ACCOUNT_API_KEY`). */
  accountKey?: string;
}

/** The flags every command that talks to a running server takes. */
export const SERVER_FLAGS = {
  url: { type: 'string' },
  key: { type: 'string' },
} as const;

/** The `--help` lines of {@link SERVER_FLAGS}. */
export const SERVER_FLAGS_HELP = `  --url URL        the server, with or without /api/v1 (default http://HOST:PORT of the
                   environment: http://127.0.0.1:3000)
  --key KEY        the account key (default MAILPLANE_ACCOUNT_API_KEY; prefer the variable:
                   a flag is visible to other users of the machine in the process list)`;

/** {@link ServerAccess} from `--url`/`--key` and the environment. */
export function serverAccess(values: ParsedArgs['values'], env: NodeJS.ProcessEnv): ServerAccess {
  const { PORT, HOST, MAILPLANE_ACCOUNT_API_KEY } = readVariables(env, [
    'PORT',
    'HOST',
    'MAILPLANE_ACCOUNT_API_KEY',
  ] as const);
  const url = stringFlag(values, 'url');
  if (url !== undefined && !/^https?:\/\/[^/]/i.test(url))
    throw new CommandFailure(`--url ${JSON.stringify(url)} is not an http:// or https:// URL`);
  // `http://host:3000/api/v1`, as the server prints it, names the same server.
  const baseUrl = (url ?? localUrlOf({ address: HOST, port: PORT, family: '' })).replace(/(\/api\/v1)?\/*$/, '');
  const accountKey = stringFlag(values, 'key') ?? MAILPLANE_ACCOUNT_API_KEY;
  return { baseUrl, ...(accountKey !== undefined && { accountKey }) };
}

/**
 * The instance secret of the server this environment describes, without creating one:
 * `MAILPLANE_SECRET`, else the file `secret` the server generated in `MAILPLANE_DATA_DIR`.
 */
export function existingSecret(values: Pick<ConfigValues, 'MAILPLANE_SECRET' | 'MAILPLANE_DATA_DIR'>): string {
  if (values.MAILPLANE_SECRET !== undefined) return values.MAILPLANE_SECRET;
  const file = join(values.MAILPLANE_DATA_DIR, 'secret');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new CommandFailure(
      `no instance secret: MAILPLANE_SECRET is unset and ${file} cannot be read; ` +
        "set MAILPLANE_SECRET, or MAILPLANE_DATA_DIR to the server's data directory",
    );
  }
}
