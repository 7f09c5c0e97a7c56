/**
 * Environments the example servers must refuse to start with, each naming the variable its error
 * line must name; the TLS files they point to are written into a directory of the caller's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { selfSignedCertificate } from './tls-cert.js';

/** One environment the example servers must refuse. */
export interface BadConfiguration {
  /** The variables set (on top of the test's own data directory and `PORT=0`). */
  env: Record<string, string>;
  /** The variable the error line names. */
  variable: string;
  /** Words the line's reason holds. */
  reason: string;
  /**
   * Whether the case can be merged with the others into one environment: false when its error
   * depends on another variable being unset (a TLS key without its certificate) or on two set together.
   */
  mergeable: boolean;
}

/** A case of one variable, whose error depends on nothing else. */
const single = (variable: string, value: string, reason: string): BadConfiguration => ({
  env: { [variable]: value },
  variable,
  reason,
  mergeable: true,
});

/** The TLS files the cases point to, written into `dir`. */
function tlsFiles(dir: string) {
  const own = selfSignedCertificate();
  const other = selfSignedCertificate();
  const files = {
    key: join(dir, 'key.pem'),
    cert: join(dir, 'cert.pem'),
    otherCert: join(dir, 'other-cert.pem'),
    notPem: join(dir, 'not-pem.txt'),
  };
  writeFileSync(files.key, own.key, { mode: 0o600 });
  writeFileSync(files.cert, own.cert);
  writeFileSync(files.otherCert, other.cert);
  writeFileSync(files.notPem, 'not a certificate\n');
  return { ...files, missing: join(dir, 'missing-key.pem') };
}

/** At least 20 bad configurations, with the TLS files they need written into `dir`. */
export function badConfigurations(dir: string): BadConfiguration[] {
  const tls = tlsFiles(dir);
  return [
    single('PORT', 'abc', 'not a whole number'),
    single('HOST', 'not a host', 'not a host name or IP address'),
    single(
      'MAILPLANE_DATABASE_URL',
      'mysql://mailplane:hunter2@127.0.0.1/mailplane',
      'the database URL must start with sqlite: or postgres://',
    ),
    single('MAILPLANE_ACCOUNT_API_KEY', 'short-key', 'shorter than 16 characters'),
    single('MAILPLANE_SECRET', 'only-twenty-chars-ok', 'shorter than 32 characters'),
    single('MAILPLANE_PUBLIC_URL', 'ftp://mail.example.com', 'not an http:// or https:// URL'),
    single(
      'MAILPLANE_DNS_SERVERS',
      '127.0.0.1:5300,dns.example.com',
      '"dns.example.com" is not an IP address with an optional port',
    ),
    single('MAILPLANE_MX_PORT', '0', 'below 1'),
    single('MAILPLANE_SANDBOX', 'maybe', 'not a yes/no value'),
    single('MAILPLANE_RETENTION_DAYS', '1.5', 'not a whole number'),
    single('MAILPLANE_ALERTS_FROM', 'alerts-at-example.com', 'not an email address'),
    single('MAILPLANE_DKIM_AUTO_ROTATE_DAYS', '-7', 'below 0'),
    single('MAILPLANE_RETRY_DELAYS_MS', '10m,soon', '"soon" is not a duration'),
    single('MAILPLANE_SMTP_PORT', '25x', 'not a whole number'),
    single('MAILPLANE_BOUNCE_PORT', '70000', 'above 65535'),
    single('MAILPLANE_INBOUND_PORT', '25.5', 'not a whole number'),
    single('MAILPLANE_INBOUND_RATE', '0', 'below 1'),
    single(
      'MAILPLANE_FEEDBACK_ADDRESSES',
      'abuse@example.com,not-an-address',
      '"not-an-address" is not an email address',
    ),
    single('MAILPLANE_SMTP_MAX_CLIENTS', '0', 'below 1'),
    single('MAILPLANE_SMTP_MAX_CONNECTIONS_PER_ADDRESS', '1e3', 'not a whole number'),
    single('MAILPLANE_WEBHOOKS_ALLOW_PRIVATE', 'enable', 'not a yes/no value'),
    single('MAILPLANE_RATE_LIMIT_REQUESTS_PER_MINUTE', 'lots', 'not a whole number'),
    single('MAILPLANE_RATE_LIMIT_RECIPIENTS_PER_MINUTE', '0', 'below 1'),
    single('MAILPLANE_RATE_LIMITS', 'disabled', 'not a yes/no value'),
    single('MAILPLANE_WORKERS', 'nope', 'not a yes/no value'),
    single('MAILPLANE_METRICS', '2', 'not a yes/no value'),
    single('MAILPLANE_METRICS_TOKEN', 'a token with spaces in it', 'has spaces or characters other than visible ASCII'),
    single('MAILPLANE_LOG_LEVEL', 'verbose', 'unknown log level'),
    { env: { PORT: '70000' }, variable: 'PORT', reason: 'above 65535', mergeable: false },
    {
      env: { MAILPLANE_RETRY_DELAYS_MS: '10m,,30m' },
      variable: 'MAILPLANE_RETRY_DELAYS_MS',
      reason: 'an entry is empty',
      mergeable: false,
    },
    {
      env: { MAILPLANE_RETRY_DELAYS_MS: '0' },
      variable: 'MAILPLANE_RETRY_DELAYS_MS',
      reason: '0 is shorter than 1ms',
      mergeable: false,
    },
    {
      env: { MAILPLANE_SMTP_PORT: '0', MAILPLANE_SMTP_TLS_KEY: tls.key },
      variable: 'MAILPLANE_SMTP_TLS_KEY',
      reason: 'set without MAILPLANE_SMTP_TLS_CERT',
      mergeable: false,
    },
    {
      env: { MAILPLANE_SMTP_PORT: '0', MAILPLANE_SMTP_TLS_CERT: tls.cert },
      variable: 'MAILPLANE_SMTP_TLS_CERT',
      reason: 'set without MAILPLANE_SMTP_TLS_KEY',
      mergeable: false,
    },
    {
      env: { MAILPLANE_SMTP_TLS_KEY: tls.missing, MAILPLANE_SMTP_TLS_CERT: tls.cert },
      variable: 'MAILPLANE_SMTP_TLS_KEY',
      reason: `cannot read ${tls.missing} (no such file)`,
      mergeable: false,
    },
    {
      env: { MAILPLANE_SMTP_TLS_KEY: tls.key, MAILPLANE_SMTP_TLS_CERT: tls.notPem },
      variable: 'MAILPLANE_SMTP_TLS_CERT',
      reason: `${tls.notPem} holds no PEM certificate`,
      mergeable: false,
    },
    {
      env: { MAILPLANE_SMTP_TLS_KEY: tls.key, MAILPLANE_SMTP_TLS_CERT: tls.otherCert },
      variable: 'MAILPLANE_SMTP_TLS_CERT',
      reason: 'not the certificate of MAILPLANE_SMTP_TLS_KEY',
      mergeable: false,
    },
    {
      env: { MAILPLANE_SMTPS_PORT: '0' },
      variable: 'MAILPLANE_SMTPS_PORT',
      reason: 'implicit TLS needs MAILPLANE_SMTP_TLS_KEY and MAILPLANE_SMTP_TLS_CERT',
      mergeable: false,
    },
    {
      env: { MAILPLANE_SMTP_PORT: '2525', MAILPLANE_BOUNCE_PORT: '2525' },
      variable: 'MAILPLANE_BOUNCE_PORT',
      reason: 'the same port as MAILPLANE_SMTP_PORT',
      mergeable: false,
    },
    {
      env: { MAILPLANE_BOUNCE_PORT: '2526', MAILPLANE_INBOUND_PORT: '2526' },
      variable: 'MAILPLANE_INBOUND_PORT',
      reason: 'the same port as MAILPLANE_BOUNCE_PORT',
      mergeable: false,
    },
  ];
}

/** The mergeable cases as one environment: every one of their variables wrong at once. */
export function mergedBadConfiguration(cases: readonly BadConfiguration[]): {
  env: Record<string, string>;
  variables: string[];
} {
  const merged = cases.filter((entry) => entry.mergeable);
  return {
    env: Object.assign({}, ...merged.map((entry) => entry.env)),
    variables: merged.map((entry) => entry.variable),
  };
}
