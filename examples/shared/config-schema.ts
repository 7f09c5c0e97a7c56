/**
 * The example servers' configuration schema: one entry per environment variable with what it
 * does, what it accepts, its default and its zod parser. The servers read their configuration
 * through {@link parseEnvironment} only, and `npm run config:docs` writes `.env.example` and the
 * README's table from these entries (config-docs.ts), so the three cannot disagree.
 */
import { z } from 'zod';
import { defaultDeliveryConfig, defaultRateLimitConfig } from 'mailplane';
import {
  BOOLEAN_WORDS,
  certificateFile,
  databaseUrl,
  dnsServers,
  duration,
  durationList,
  emailAddress,
  emailList,
  formatDuration,
  headerCredential,
  hostName,
  keyMatchesCertificate,
  listenHost,
  logLevel,
  onOff,
  plainText,
  port,
  privateKeyFile,
  publicUrl,
  secretText,
  wholeNumber,
  type TextParser,
} from './config-parsers.js';

/** How a variable's value is shown in an error: as given, hidden (a credential), or with a URL's password masked. */
export type ValueDisplay = 'shown' | 'hidden' | 'url-password';

/** One environment variable of the example servers. */
export interface ConfigVariable<T> {
  /** What it does, in Markdown (the README's table; `.env.example` without the Markdown). */
  description: string;
  /** What it accepts, in plain words: errors end with it. */
  accepts: string;
  /** The value used when it is unset or blank (also `.env.example`'s value). */
  default?: string;
  /** What happens when it is unset, in Markdown, for a variable without a {@link default}. */
  whenUnset?: string;
  /** How its value appears in an error (default `'shown'`). */
  display?: ValueDisplay;
  /** Reads its text (or the default); unset without a default: `undefined`. */
  field: z.ZodType<T, string | undefined>;
}

/** A variable's specification before its parser is wrapped. */
type VariableSpec<T> = Omit<ConfigVariable<T>, 'field'> & { parser: TextParser<T> };

/** A variable whose unset value is its default, or `undefined` without one. */
function variable<T>(spec: VariableSpec<T> & { default: string }): ConfigVariable<T>;
function variable<T>(spec: VariableSpec<T> & { whenUnset: string }): ConfigVariable<T | undefined>;
function variable<T>({ parser, ...spec }: VariableSpec<T>): ConfigVariable<T | undefined> {
  const field = z
    .string()
    .optional()
    // A blank value counts as unset: `NAME=` lines in env files and empty shell variables are common.
    .transform((raw) => (raw === undefined || raw.trim() === '' ? spec.default : raw))
    .pipe(parser.optional());
  return { ...spec, field };
}

const BOOLEAN = `${BOOLEAN_WORDS.true.join(', ')} or ${BOOLEAN_WORDS.false.join(', ')} (any case)`;
const PORT = 'a port number from 0 to 65535 (0 picks a free one)';
const CREDENTIAL = '16 to 512 visible ASCII characters, no spaces';
const MAX_DAYS = 3650;
const DAY_MS = 86_400_000;

/** Every variable the example servers read, in the order the README's table lists them. */
export const CONFIG_VARIABLES = {
  PORT: variable({ default: '3000', accepts: PORT, description: 'HTTP port', parser: port() }),
  HOST: variable({
    default: '127.0.0.1',
    accepts: 'an IP address or host name of this machine',
    description: 'address to listen on (`0.0.0.0` or `::` for every interface)',
    parser: listenHost,
  }),
  MAILPLANE_DATABASE_URL: variable({
    default: 'sqlite:./data/mailplane.db',
    display: 'url-password',
    parser: databaseUrl,
    accepts: 'sqlite: and a file path, or postgres://user:password@host:port/database',
    description:
      'where the data lives: `sqlite:./relative.db`, `sqlite:/absolute/path.db`, or `postgres://user@host:port/db` for PostgreSQL',
  }),
  MAILPLANE_ACCOUNT_API_KEY: variable({
    whenUnset: 'generated on first start, printed once',
    display: 'hidden',
    accepts: CREDENTIAL,
    parser: headerCredential(16),
    description: "the account key (`X-Account-ApiKey`); when set, it becomes the account's key",
  }),
  MAILPLANE_SECRET: variable({
    whenUnset: 'generated once into the file `secret` of `MAILPLANE_DATA_DIR`',
    display: 'hidden',
    accepts: 'at least 32 characters',
    parser: secretText(32),
    description:
      'instance secret: API keys, SMTP passwords and DKIM keys are encrypted under it and looked up by hashes keyed with it. Keep it safe and stable: without it stored secrets cannot be read',
  }),
  MAILPLANE_DATA_DIR: variable({
    default: './data',
    accepts: 'a directory path',
    parser: plainText,
    description:
      'where the generated secret is kept (the directory is created 0700, the secret file 0600; the SQLite database and its WAL files are 0600 too)',
  }),
  MAILPLANE_PUBLIC_URL: variable({
    whenUnset: '`http://HOST:PORT` as bound (the port chosen for `PORT=0`; `127.0.0.1` for `HOST=0.0.0.0`)',
    accepts: 'an http:// or https:// URL without query or fragment',
    parser: publicUrl,
    description: 'public base URL of this server; unsubscribe, open and click links point to `<url>/t/…`',
  }),
  MAILPLANE_DNS_SERVERS: variable({
    whenUnset: "the system's resolvers",
    parser: dnsServers,
    accepts: 'comma-separated IP addresses, each with an optional port (127.0.0.1:5300, [::1]:53)',
    description: 'resolvers for domain verification and MX lookups, e.g. `127.0.0.1:5300,[::1]:53`',
  }),
  MAILPLANE_MX_PORT: variable({
    whenUnset: `\`${defaultDeliveryConfig.mxPort}\``,
    accepts: 'a port number from 1 to 65535',
    parser: port(1),
    description: "port of recipients' MX hosts (a loopback sink's port for local testing)",
  }),
  MAILPLANE_SANDBOX: variable({
    whenUnset: 'on unless `MAILPLANE_DNS_SERVERS` or `MAILPLANE_MX_PORT` is set or `NODE_ENV` is `production`',
    accepts: BOOLEAN,
    parser: onOff,
    description:
      "on: sandbox mode (a loopback DNS server for `.test`/`.example` domains and a mail catcher as every recipient's MX, [docs/sandbox.md](docs/sandbox.md)); off: real DNS and delivery",
  }),
  MAILPLANE_RETENTION_DAYS: variable({
    whenUnset: '`30`',
    accepts: `a whole number of days from 0 to ${MAX_DAYS}`,
    parser: wholeNumber(0, MAX_DAYS),
    description:
      'days messages and events are kept before the retention job deletes them (statistics are kept); `0` keeps them forever ([docs/activity.md](docs/activity.md))',
  }),
  MAILPLANE_ALERTS_FROM: variable({
    whenUnset: 'no incident emails (webhooks and Slack still go)',
    accepts: 'an email address on a verified sending domain of the account',
    parser: emailAddress,
    description:
      'the address incident notification emails are sent from, as the sub-account that owns its verified domain ([docs/reputation.md](docs/reputation.md#notifications))',
  }),
  MAILPLANE_INBOUND_HOSTNAME: variable({
    whenUnset: 'receiving cannot be enabled on a domain',
    accepts: 'a host name with a dot, e.g. mx.mail.example.net',
    parser: hostName,
    description:
      'host name of the inbound MX listener: the value of the MX record receiving domains publish ([docs/inbound.md](docs/inbound.md))',
  }),
  MAILPLANE_REPUTATION_INTERVAL: variable({
    whenUnset: '`1m`',
    accepts: 'a duration from 1s to 1h: milliseconds (60000) or a number with a unit: 30s, 1m',
    parser: duration(1_000, 3_600_000),
    description:
      'how often alert rules and the automatic protection are evaluated, on one node of a cluster ([docs/reputation.md](docs/reputation.md#evaluation))',
  }),
  MAILPLANE_SHAPING_THROTTLE_WAIT: variable({
    whenUnset: '`30s`',
    accepts: 'a duration from 1s to 1h: milliseconds (30000) or a number with a unit: 30s, 1m',
    parser: duration(1_000, 3_600_000),
    description:
      "how long a message waits, without a retry counted, after a receiver's slow-down reply before it is routed again ([docs/shaping.md](docs/shaping.md#adaptive-throttling))",
  }),
  MAILPLANE_SHAPING_CACHE: variable({
    whenUnset: '`5s`',
    accepts: 'a duration from 0s to 1m: milliseconds (5000) or a number with a unit: 5s, 1m',
    parser: duration(0, 60_000),
    description:
      "how long each node keeps an account's shaping rules and the list of suspended sources before reading them again: a rule changed on another node applies within it ([docs/shaping.md](docs/shaping.md#how-delivery-keeps-to-them))",
  }),
  MAILPLANE_DKIM_AUTO_ROTATE_DAYS: variable({
    whenUnset: 'off',
    accepts: `a whole number of days from 0 (off) to ${MAX_DAYS}`,
    parser: wholeNumber(0, MAX_DAYS),
    description:
      "rotate each verified domain's DKIM key after this many days; the new key signs once its record is published (the domain's `dkimRecords` and the dashboard's Domains page list it; [docs/domains.md](docs/domains.md#dkim-key-rotation))",
  }),
  MAILPLANE_RETRY_DELAYS_MS: variable({
    whenUnset: `\`${defaultDeliveryConfig.retryDelaysMs.map(formatDuration).join(',')}\``,
    parser: durationList(1, 30 * DAY_MS, 50),
    accepts:
      '1 to 50 comma-separated durations from 1ms to 30d, each milliseconds (600000) or a number with a unit: 500ms, 10s, 10m, 2h, 1d',
    description: 'delays before each retry of a deferred message, one entry per retry',
  }),
  MAILPLANE_SMTP_PORT: variable({
    whenUnset: 'off',
    accepts: PORT,
    parser: port(),
    description:
      'SMTP relay port (25, 2525, 587): STARTTLS with the certificate below; without one, logins only from loopback clients (whatever `HOST` is)',
  }),
  MAILPLANE_SMTPS_PORT: variable({
    whenUnset: 'off',
    accepts: PORT,
    parser: port(),
    description: 'SMTP relay port with implicit TLS (465); needs the certificate',
  }),
  MAILPLANE_SMTP_TLS_KEY: variable({
    whenUnset: 'none',
    accepts: 'the path of a readable PEM private key, with MAILPLANE_SMTP_TLS_CERT',
    parser: privateKeyFile,
    description: "PEM file of the SMTP listeners' TLS key (given with its certificate)",
  }),
  MAILPLANE_SMTP_TLS_CERT: variable({
    whenUnset: 'none',
    accepts: 'the path of a readable PEM certificate of MAILPLANE_SMTP_TLS_KEY',
    parser: certificateFile,
    description: "PEM file of the SMTP listeners' TLS certificate (given with its key)",
  }),
  MAILPLANE_BOUNCE_PORT: variable({
    whenUnset: 'off',
    accepts: PORT,
    parser: port(),
    description: 'port of the bounce and complaint receiver (25 on the internet: the MX of the return-path target)',
  }),
  MAILPLANE_INBOUND_PORT: variable({
    whenUnset: 'off',
    accepts: PORT,
    parser: port(),
    description:
      'port of the inbound MX listener that receives mail for the domains with receiving enabled (25 on the internet; [docs/inbound.md](docs/inbound.md#in-the-example-servers))',
  }),
  MAILPLANE_INBOUND_RATE: variable({
    whenUnset: '`120`',
    accepts: 'a whole number from 1 to 1000000',
    parser: wholeNumber(1, 1_000_000),
    description:
      'messages a minute the inbound MX listener accepts from one client address (an IPv6 client by its /64); more are answered `450 4.7.1` at `MAIL FROM`',
  }),
  MAILPLANE_FEEDBACK_ADDRESSES: variable({
    whenUnset: 'none',
    accepts: 'comma-separated email addresses',
    parser: emailList,
    description: 'addresses that receive complaint (ARF) reports',
  }),
  MAILPLANE_SMTP_MAX_CLIENTS: variable({
    whenUnset: '`100`',
    accepts: 'a whole number from 1 to 100000',
    parser: wholeNumber(1, 100_000),
    description: 'connections at once on each SMTP listener (relays, bounce receiver); more are answered `421`',
  }),
  MAILPLANE_SMTP_MAX_CONNECTIONS_PER_ADDRESS: variable({
    whenUnset: '`20`',
    accepts: 'a whole number from 1 to 100000',
    parser: wholeNumber(1, 100_000),
    description:
      'connections at once from one client address (an IPv6 client by its /64) on each SMTP listener; more are answered `421 4.7.0`',
  }),
  MAILPLANE_WEBHOOKS_ALLOW_PRIVATE: variable({
    default: 'off',
    accepts: BOOLEAN,
    parser: onOff,
    description: 'on lets webhooks reach loopback and private addresses (local development)',
  }),
  MAILPLANE_RATE_LIMIT_REQUESTS_PER_MINUTE: variable({
    whenUnset: `\`${defaultRateLimitConfig.requestsPerMinute}\``,
    accepts: 'a whole number from 1 to 1000000000',
    parser: wholeNumber(1, 1e9),
    description:
      'API requests a minute per key, on every route but the send endpoint (`429 RATE_LIMITED` above, with `Retry-After`)',
  }),
  MAILPLANE_RATE_LIMIT_RECIPIENTS_PER_MINUTE: variable({
    whenUnset: `\`${defaultRateLimitConfig.recipientsPerMinute}\``,
    accepts: 'a whole number from 1 to 1000000000',
    parser: wholeNumber(1, 1e9),
    description: 'recipients (to + cc + bcc) a minute per sub-account key through `POST /subaccount/email`',
  }),
  MAILPLANE_RATE_LIMITS: variable({
    default: 'on',
    accepts: BOOLEAN,
    parser: onOff,
    description: 'off turns the API rate limits off (for example behind a gateway that limits already)',
  }),
  MAILPLANE_WORKERS: variable({
    default: 'on',
    accepts: BOOLEAN,
    parser: onOff,
    description: 'off runs no background jobs (delivery, DNS re-checks, IP warmup, webhook deliveries) in this process',
  }),
  MAILPLANE_METRICS: variable({
    default: 'off',
    accepts: BOOLEAN,
    parser: onOff,
    description: 'on serves Prometheus metrics at `GET /metrics` ([docs/operations.md](docs/operations.md))',
  }),
  MAILPLANE_METRICS_TOKEN: variable({
    whenUnset: 'none',
    display: 'hidden',
    accepts: CREDENTIAL,
    parser: headerCredential(16),
    description: 'when set, `/metrics` needs `Authorization: Bearer <token>` (401 JSON without it)',
  }),
  MAILPLANE_LOG_LEVEL: variable({
    default: 'info',
    accepts: 'trace, debug, info, warn, error, fatal or silent (any case)',
    parser: logLevel,
    description: 'least severe level of the JSON log lines on stdout',
  }),
};

/** The name of a variable in {@link CONFIG_VARIABLES}. */
export type ConfigVariableName = keyof typeof CONFIG_VARIABLES;

/** The parsed value of every variable: defaults applied, `undefined` for an unset one without a default. */
export type ConfigValues = {
  [Name in ConfigVariableName]: (typeof CONFIG_VARIABLES)[Name] extends ConfigVariable<infer T> ? T : never;
};

/** One variable the servers cannot start with. */
export interface ConfigProblem {
  variable: string;
  /** The value as the error shows it: quoted, or hidden for a credential. */
  shownValue: string;
  /** What is wrong with it. */
  reason: string;
  /** What the variable accepts. */
  accepts: string;
}

/** The configuration the example servers were given cannot be used; names every bad variable. */
export class ConfigurationError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map(describeProblem).join('\n'));
    this.name = 'ConfigurationError';
  }
}

/** `NAME="value": what is wrong; accepted: what it accepts`, one line. */
export function describeProblem(problem: ConfigProblem): string {
  return `${problem.variable}=${problem.shownValue}: ${problem.reason}; accepted: ${problem.accepts}`.replace(
    /\s*\n\s*/g,
    ' ',
  );
}

/** `raw` as an error may show it: credentials hidden, a URL's password masked. */
export function shownValue(raw: string, display: ValueDisplay = 'shown'): string {
  if (display === 'hidden') return `(hidden, ${raw.length} characters)`;
  // Up to the last `@`: a password with an unencoded `@` or `/` is masked whole (a path loses a little).
  if (display === 'url-password')
    return JSON.stringify(raw.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@]*):.*@/i, '$1:***@'));
  return JSON.stringify(raw);
}

/** The variables read together, checked once each parsed on its own. */
function crossProblems(env: NodeJS.ProcessEnv, values: Partial<ConfigValues>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const given = (name: ConfigVariableName) => (env[name] ?? '').trim() !== '';
  const problem = (variable: ConfigVariableName, reason: string, accepts: string) =>
    problems.push({
      variable,
      shownValue: shownValue(env[variable] ?? '', CONFIG_VARIABLES[variable].display),
      reason,
      accepts,
    });
  // Without both files the relay would start in plaintext, which is not what the operator asked for.
  if (given('MAILPLANE_SMTP_TLS_KEY') !== given('MAILPLANE_SMTP_TLS_CERT')) {
    const [set, missing] = given('MAILPLANE_SMTP_TLS_KEY')
      ? (['MAILPLANE_SMTP_TLS_KEY', 'MAILPLANE_SMTP_TLS_CERT'] as const)
      : (['MAILPLANE_SMTP_TLS_CERT', 'MAILPLANE_SMTP_TLS_KEY'] as const);
    problem(set, `set without ${missing}`, 'a TLS key and its certificate, both or neither');
  }
  if (
    values.MAILPLANE_SMTP_TLS_KEY &&
    values.MAILPLANE_SMTP_TLS_CERT &&
    !keyMatchesCertificate(values.MAILPLANE_SMTP_TLS_KEY, values.MAILPLANE_SMTP_TLS_CERT)
  ) {
    problem(
      'MAILPLANE_SMTP_TLS_CERT',
      'not the certificate of MAILPLANE_SMTP_TLS_KEY',
      CONFIG_VARIABLES.MAILPLANE_SMTP_TLS_CERT.accepts,
    );
  }
  if (
    values.MAILPLANE_SMTPS_PORT !== undefined &&
    !(given('MAILPLANE_SMTP_TLS_KEY') && given('MAILPLANE_SMTP_TLS_CERT'))
  ) {
    problem(
      'MAILPLANE_SMTPS_PORT',
      'implicit TLS needs MAILPLANE_SMTP_TLS_KEY and MAILPLANE_SMTP_TLS_CERT',
      'a port, with the TLS key and certificate set',
    );
  }
  // Every listener binds HOST: a port named twice would fail after the start printed its key.
  const listeners = [
    'PORT',
    'MAILPLANE_SMTP_PORT',
    'MAILPLANE_SMTPS_PORT',
    'MAILPLANE_BOUNCE_PORT',
    'MAILPLANE_INBOUND_PORT',
  ] as const;
  listeners.forEach((name, index) => {
    const taken = listeners
      .slice(0, index)
      .find((earlier) => values[name] !== 0 && values[name] !== undefined && values[earlier] === values[name]);
    if (taken) problem(name, `the same port as ${taken}`, 'a port no other listener of this server uses (or 0)');
  });
  return problems;
}

/** What {@link parseEnvironment} found: the values, or every problem. */
export type ParsedEnvironment = { ok: true; values: ConfigValues } | { ok: false; problems: ConfigProblem[] };

/** Parses every variable of {@link CONFIG_VARIABLES} from `env`, collecting every problem rather than stopping at the first. */
export function parseEnvironment(env: NodeJS.ProcessEnv): ParsedEnvironment {
  const values: Partial<Record<ConfigVariableName, unknown>> = {};
  const problems: ConfigProblem[] = [];
  for (const [name, entry] of Object.entries(CONFIG_VARIABLES) as [ConfigVariableName, ConfigVariable<unknown>][]) {
    const result = entry.field.safeParse(env[name]);
    if (result.success) values[name] = result.data;
    else
      problems.push({
        variable: name,
        shownValue: shownValue(env[name] ?? entry.default ?? '', entry.display),
        reason: result.error.issues[0]?.message ?? 'not accepted',
        accepts: entry.accepts,
      });
  }
  problems.push(...crossProblems(env, values as Partial<ConfigValues>));
  return problems.length === 0 ? { ok: true, values: values as ConfigValues } : { ok: false, problems };
}

/** {@link parseEnvironment}'s values; throws a {@link ConfigurationError} naming every bad variable. */
export function readConfigValues(env: NodeJS.ProcessEnv): ConfigValues {
  const parsed = parseEnvironment(env);
  if (!parsed.ok) throw new ConfigurationError(parsed.problems);
  return parsed.values;
}
