/**
 * The zod parsers of the example servers' environment variables: each takes the variable's text
 * (never blank: a blank variable counts as unset) and gives the typed value, or fails with a few
 * words on what is wrong. The line printed adds the variable, its value and what it accepts
 * (config-schema.ts), so the words here stay short.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { isEmailAddress, LOG_LEVELS, parseDnsServers, type DnsServerAddress, type LogLevel } from 'mailplane';
import { parseDatabaseUrl } from 'mailplane/storage/kysely';

/** A parser of one variable's text. */
export type TextParser<T> = z.ZodType<T, string>;

/** Fails the value being parsed with `reason`; returned by a transform to stop there. */
function fail(ctx: z.core.$RefinementCtx, input: string, reason: string): never {
  ctx.issues.push({ code: 'custom', message: reason, input });
  return z.NEVER;
}

/** A whole number from `min` to `max`, in decimal digits (no `1e3`, no `0x10`, no fraction). */
export function wholeNumber(min: number, max: number): TextParser<number> {
  return z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'not a whole number')
    .transform(Number)
    .pipe(z.number().min(min, `below ${min}`).max(max, `above ${max}`));
}

/** A TCP port; `min` 0 lets the system pick a free one, 1 for a port of another host. */
export function port(min: 0 | 1 = 0): TextParser<number> {
  return wholeNumber(min, 65_535);
}

/** The words a yes/no variable accepts, in either case. */
export const BOOLEAN_WORDS = { true: ['1', 'true', 'on', 'yes'], false: ['0', 'false', 'off', 'no'] } as const;

/** A yes/no value: {@link BOOLEAN_WORDS}, case-insensitive. */
export const onOff: TextParser<boolean> = z
  .string()
  .trim()
  .toLowerCase()
  .transform((word, ctx) => {
    if ((BOOLEAN_WORDS.true as readonly string[]).includes(word)) return true;
    if ((BOOLEAN_WORDS.false as readonly string[]).includes(word)) return false;
    return fail(ctx, word, 'not a yes/no value');
  });

/** Milliseconds in each duration unit. */
const DURATION_UNITS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds of `text` (`1500`, `500ms`, `10s`, `10m`, `1.5h`, `2d`), or why it is not a duration. */
function durationMs(text: string, min: number, max: number): number | string {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i.exec(text.trim());
  if (!match) return `${JSON.stringify(text.trim())} is not a duration`;
  const ms = Math.round(
    Number(match[1]) * DURATION_UNITS[(match[2]?.toLowerCase() ?? 'ms') as keyof typeof DURATION_UNITS],
  );
  if (ms < min) return `${text.trim()} is shorter than ${formatDuration(min)}`;
  if (ms > max) return `${text.trim()} is longer than ${formatDuration(max)}`;
  return ms;
}

/** `ms` in the largest unit that divides it exactly (`600000` → `10m`), as the parsers read it back. */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms >= DURATION_UNITS[unit] && ms % DURATION_UNITS[unit] === 0) return `${ms / DURATION_UNITS[unit]}${unit}`;
  }
  return `${ms}ms`;
}

/** One duration ({@link durationMs}) from `min` to `max` ms. */
export function duration(min: number, max: number): TextParser<number> {
  return z.string().transform((text, ctx) => {
    const ms = durationMs(text, min, max);
    return typeof ms === 'string' ? fail(ctx, text, ms) : ms;
  });
}

/** Comma-separated durations ({@link durationMs}), at least one and at most `maxEntries`, each from `min` to `max` ms. */
export function durationList(min: number, max: number, maxEntries: number): TextParser<number[]> {
  return z.string().transform((text, ctx) => {
    const entries = text.split(',').map((entry) => entry.trim());
    if (entries.some((entry) => entry === '')) return fail(ctx, text, 'an entry is empty');
    if (entries.length > maxEntries) return fail(ctx, text, `${entries.length} entries, more than ${maxEntries}`);
    const delays = entries.map((entry) => durationMs(entry, min, max));
    const problem = delays.find((delay) => typeof delay === 'string');
    return problem === undefined ? (delays as number[]) : fail(ctx, text, problem);
  });
}

/** Comma-separated email addresses, blanks between commas ignored. */
export const emailList: TextParser<string[]> = z.string().transform((text, ctx) => {
  const addresses = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const bad = addresses.find((address) => !isEmailAddress(address));
  return bad === undefined ? addresses : fail(ctx, text, `${JSON.stringify(bad)} is not an email address`);
});

/** One email address. */
export const emailAddress: TextParser<string> = z
  .string()
  .trim()
  .transform((text, ctx) => (isEmailAddress(text) ? text : fail(ctx, text, 'not an email address')));

/** A host name or an IP address (IPv6 without brackets) to listen on. */
export const listenHost: TextParser<string> = z
  .string()
  .trim()
  .refine(
    (host) =>
      isIP(host) !== 0 ||
      (host.length <= 253 && /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(host)),
    'not a host name or IP address',
  );

/** A public host name of two labels or more (an MX record's value, e.g. mx.mail.example.net). */
export const hostName: TextParser<string> = z
  .string()
  .trim()
  .refine(
    (host) =>
      /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i.test(host),
    'not a host name with a dot, e.g. mx.example.net',
  );

/** An `http://` or `https://` URL without query or fragment, returned without trailing slashes. */
export const publicUrl: TextParser<string> = z
  .string()
  .trim()
  .transform((text, ctx) => {
    const url = URL.canParse(text) ? new URL(text) : undefined;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      return fail(ctx, text, 'not an http:// or https:// URL');
    if (url.search !== '' || url.hash !== '') return fail(ctx, text, 'has a query or fragment');
    return text.replace(/\/+$/, '');
  });

/** A database URL {@link parseDatabaseUrl} accepts; kept as given. */
export const databaseUrl: TextParser<string> = z
  .string()
  .trim()
  .transform((text, ctx) => {
    try {
      parseDatabaseUrl(text);
      return text;
    } catch (error) {
      return fail(ctx, text, (error as Error).message.replace(text, 'it'));
    }
  });

/** DNS resolvers as {@link parseDnsServers} reads them (`host`, `host:port`, `[v6]:port`), at least one. */
export const dnsServers: TextParser<DnsServerAddress[]> = z.string().transform((text, ctx) => {
  // Entry by entry, as parseDnsServers splits them, so the error names the one it cannot read.
  const entries = text.split(/[\s,]+/).filter(Boolean);
  if (entries.length === 0) return fail(ctx, text, 'names no server');
  const servers: DnsServerAddress[] = [];
  for (const entry of entries) {
    try {
      servers.push(...parseDnsServers(entry));
    } catch {
      return fail(ctx, text, `${JSON.stringify(entry)} is not an IP address with an optional port`);
    }
  }
  return servers;
});

/** One of the log levels pino knows, case-insensitive. */
export const logLevel: TextParser<LogLevel> = z
  .string()
  .trim()
  .toLowerCase()
  .refine(
    (level): level is LogLevel => (LOG_LEVELS as readonly string[]).includes(level),
    'unknown log level',
  ) as unknown as TextParser<LogLevel>;

/**
 * A credential sent in an HTTP header (account key, bearer token): visible ASCII without spaces,
 * `minLength` to 512 characters. Its value is never printed (config-schema.ts hides it).
 */
export function headerCredential(minLength: number): TextParser<string> {
  return z
    .string()
    .regex(/^[\x21-\x7e]*$/, 'has spaces or characters other than visible ASCII')
    .min(minLength, `shorter than ${minLength} characters`)
    .max(512, 'longer than 512 characters');
}

/** A secret of at least `minLength` characters, kept exactly as given. */
export function secretText(minLength: number): TextParser<string> {
  return z
    .string()
    .transform((secret, ctx) =>
      secret.length >= minLength ? secret : fail(ctx, secret, `shorter than ${minLength} characters`),
    );
}

/** Node's words for a file that cannot be read. */
function readProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'a directory, not a file';
  return (error as Error).message;
}

/** A PEM file read whole: its path and text. */
export interface PemFile {
  path: string;
  pem: string;
}

/** The path of a PEM file holding what `check` accepts (it throws otherwise), read at once. */
function pemFile(what: string, check: (pem: string) => void): TextParser<PemFile> {
  return z.string().transform((path, ctx) => {
    let pem: string;
    try {
      pem = readFileSync(path, 'utf8');
    } catch (error) {
      return fail(ctx, path, `cannot read ${path} (${readProblem(error)})`);
    }
    try {
      check(pem);
    } catch {
      return fail(ctx, path, `${path} holds no ${what}`);
    }
    return { path, pem };
  });
}

/** A readable PEM file of a private key. */
export const privateKeyFile = pemFile('PEM private key', (pem) => createPrivateKey(pem));

/** A readable PEM file of an X.509 certificate. */
export const certificateFile = pemFile('PEM certificate', (pem) => new X509Certificate(pem));

/** Whether the certificate in `cert` is the one of the private key in `key`. */
export function keyMatchesCertificate(key: PemFile, cert: PemFile): boolean {
  try {
    return new X509Certificate(cert.pem).checkPrivateKey(createPrivateKey(key.pem));
  } catch {
    return false;
  }
}

/** Any text, trimmed (a path, a name). */
export const plainText: TextParser<string> = z.string().trim();
