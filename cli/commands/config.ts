/**
 * `mailplane config`: the effective configuration, every variable of the schema
 * (examples/shared/config-schema.ts) as it resolves from this environment, with where each value
 * comes from. Credentials are never printed: only whether they are set.
 */
import { formatDuration } from '../../examples/shared/config-parsers.js';
import {
  CONFIG_VARIABLES,
  readConfigValues,
  shownValue,
  type ConfigValues,
  type ConfigVariableName,
} from '../../examples/shared/config-schema.js';
import { sandboxWanted } from '../../examples/shared/bootstrap.js';
import { EXIT, type CliCommand } from '../command.js';

/** Where a value comes from: the environment, the schema's default, the rule for an unset variable, or nowhere. */
type Source = 'environment' | 'default' | 'derived' | 'unset';

/** One variable of the effective configuration. */
export interface EffectiveVariable {
  name: ConfigVariableName;
  /** The value as text, masked for credentials; `null` when unset without a default. */
  value: string | null;
  source: Source;
  /** What an unset variable without a default means (from the schema). */
  whenUnset?: string;
}

/** What replaces a credential's value. */
export const HIDDEN = '(hidden)';

/** A parsed value as text: on/off, durations with units, lists comma-separated, a PEM file by its path. */
function formatValue(name: ConfigVariableName, value: unknown): string {
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (name === 'MAILPLANE_RETRY_DELAYS_MS') return (value as number[]).map(formatDuration).join(',');
  if (name === 'MAILPLANE_DNS_SERVERS')
    return (value as { host: string; port: number }[])
      .map(({ host, port }) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`))
      .join(',');
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object' && value !== null && 'path' in value) return String(value.path);
  return String(value);
}

/** The effective configuration of `env`; throws the schema's ConfigurationError for a bad variable. */
export function effectiveConfiguration(env: NodeJS.ProcessEnv): EffectiveVariable[] {
  const values: ConfigValues = readConfigValues(env);
  return (Object.keys(CONFIG_VARIABLES) as ConfigVariableName[]).map((name) => {
    const entry = CONFIG_VARIABLES[name] as (typeof CONFIG_VARIABLES)[ConfigVariableName];
    const given = (env[name] ?? '').trim() !== '';
    const whenUnset = 'whenUnset' in entry ? entry.whenUnset?.replace(/`/g, '') : undefined;
    const display = 'display' in entry ? entry.display : 'shown';
    if (name === 'MAILPLANE_SANDBOX' && !given) {
      // Unset, sandbox mode follows other variables and NODE_ENV: say what it comes to here.
      return { name, value: formatValue(name, sandboxWanted(values, env.NODE_ENV)), source: 'derived', whenUnset };
    }
    const value = values[name];
    if (value === undefined) return { name, value: null, source: 'unset', ...(whenUnset && { whenUnset }) };
    const source: Source = given ? 'environment' : 'default';
    if (display === 'hidden') return { name, value: HIDDEN, source };
    if (display === 'url-password') return { name, value: JSON.parse(shownValue(String(value), display)), source };
    return { name, value: formatValue(name, value), source };
  });
}

/** The readable table: one variable a line, its value and where it comes from. */
function configLines(variables: EffectiveVariable[]): string[] {
  const width = Math.max(...variables.map((variable) => variable.name.length));
  return variables.map(({ name, value, source, whenUnset }) => {
    const note =
      source === 'unset' ? `unset: ${whenUnset ?? 'off'}` : source === 'derived' ? `unset: ${whenUnset}` : source;
    return `${name.padEnd(width)}  ${value ?? '-'}  (${note})`;
  });
}

/** `mailplane config`. */
export const command: CliCommand = {
  name: 'config',
  summary: 'print the effective configuration, secrets masked',
  positionals: { min: 0, max: 0, names: '' },
  options: { json: { type: 'boolean' } },
  help: `Usage: mailplane config [--json]

Prints every variable the server reads (the README's configuration table) as this environment
sets it: its value, and whether it comes from the environment, the default, or is unset. The
account key, the instance secret and the metrics token are shown as ${HIDDEN}, and the password of
a PostgreSQL URL as ***. Every variable is checked as \`mailplane start\` checks it: a bad one is
reported, naming it, with exit status 1.

Flags:
  --json       one JSON object: {"PORT": {"value": "3000", "source": "default"}, …}
  -h, --help   this help

Exit status: 0 the configuration is valid; 1 a variable is not; 2 a usage error.

Example:
  PORT=8080 MAILPLANE_SECRET=… mailplane config`,
  run: async ({ values, env }) => {
    const variables = effectiveConfiguration(env);
    if (values.json === true) {
      const json = Object.fromEntries(variables.map(({ name, ...rest }) => [name, rest]));
      console.log(JSON.stringify(json, null, 2));
    } else {
      for (const line of configLines(variables)) console.log(line);
    }
    return EXIT.ok;
  },
};
