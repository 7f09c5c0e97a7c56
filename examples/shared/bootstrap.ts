/**
 * Configuration and start-up shared by the example servers: reads the environment, opens the
 * store, makes sure the account exists, and prints a generated account key once.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { consoleLogger, createBounceReceiver, createMailplane, pinoLogger, createSmtpRelay, parseDnsServers, startSandbox, type Mailplane, type MailplaneOptions, type Sandbox, type SmtpListener } from 'mailplane';
import { ensurePrivateDirectory, ensurePrivateFile, PRIVATE_FILE_MODE } from 'mailplane/storage/kysely';
import { mxTransport, smartHostTransport } from 'mailplane/transport/smtp';
import { openExampleStore, readPemFile } from './startup.js';

/** The example servers' configuration, from the environment (see the README's table). */
export interface ExampleConfig {
  port: number;
  host: string;
  databaseUrl: string;
  dataDir: string;
  /**
   * The public base URL of this server (`MAILPLANE_PUBLIC_URL`, no trailing `/`), which the links in
   * sent mail start with; unset: the address the HTTP server actually bound ({@link publicBaseUrl}).
   */
  publicUrl?: string;
  accountApiKey?: string;
  secret?: string;
  /** Run background jobs (delivery, DNS checks) in this process; `MAILPLANE_WORKERS=off` disables them. */
  workers: boolean;
  /** The local sandbox (docs/sandbox.md): see {@link sandboxWanted}. */
  sandbox: boolean;
  /** Serve `GET /metrics` (`MAILPLANE_METRICS=1`); its bearer token is `MAILPLANE_METRICS_TOKEN`. */
  metrics: boolean;
  /** Least severe log level written (`MAILPLANE_LOG_LEVEL`: trace, debug, info (default), warn, error, fatal, silent). */
  logLevel?: string;
  /**
   * Options passed to createMailplane from the environment (DNS, delivery, webhooks, rate limits);
   * `trackingBaseUrl` is not one: it needs the bound address, see {@link startMailplane}.
   */
  mailplane: Pick<MailplaneOptions, 'dns' | 'delivery' | 'webhooks' | 'rateLimits' | 'metrics' | 'retention'>;
  /** The SMTP relay: off unless a port is given. */
  smtp: {
    /** Plain port with STARTTLS when a certificate is given (25, 2525 or 587); `MAILPLANE_SMTP_PORT`. */
    port?: number;
    /** Implicit-TLS port (465); `MAILPLANE_SMTPS_PORT`, needs the certificate. */
    tlsPort?: number;
    /** PEM files `MAILPLANE_SMTP_TLS_KEY` and `MAILPLANE_SMTP_TLS_CERT`. */
    tls?: { key: string; cert: string };
    /** The bounce and complaint receiver's port (25 on the internet); `MAILPLANE_BOUNCE_PORT`. */
    bouncePort?: number;
    /** Addresses that receive complaint reports; `MAILPLANE_FEEDBACK_ADDRESSES`, comma-separated. */
    feedbackAddresses: string[];
    /** Connections at once per SMTP listener; `MAILPLANE_SMTP_MAX_CLIENTS` (default 100). */
    maxClients?: number;
    /** Connections at once from one client address per SMTP listener; `MAILPLANE_SMTP_MAX_CONNECTIONS_PER_ADDRESS` (default 20). */
    maxConnectionsPerAddress?: number;
  };
}

/** The API rate limits from `MAILPLANE_RATE_LIMITS=off` or the two per-minute figures; unset ones keep the defaults. */
function rateLimitsFrom(env: NodeJS.ProcessEnv): MailplaneOptions['rateLimits'] {
  if (env.MAILPLANE_RATE_LIMITS === 'off') return false;
  return {
    ...(env.MAILPLANE_RATE_LIMIT_REQUESTS_PER_MINUTE && { requestsPerMinute: Number(env.MAILPLANE_RATE_LIMIT_REQUESTS_PER_MINUTE) }),
    ...(env.MAILPLANE_RATE_LIMIT_RECIPIENTS_PER_MINUTE && { recipientsPerMinute: Number(env.MAILPLANE_RATE_LIMIT_RECIPIENTS_PER_MINUTE) }),
  };
}

/**
 * Sandbox mode: on with `MAILPLANE_SANDBOX=1`, off with `MAILPLANE_SANDBOX=0`, and otherwise on
 * unless real DNS or delivery is configured (`MAILPLANE_DNS_SERVERS`, `MAILPLANE_MX_PORT`) or
 * `NODE_ENV` is `production`: a first `npm start` then shows mail going all the way through.
 */
export function sandboxWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.MAILPLANE_SANDBOX === '1' || env.MAILPLANE_SANDBOX === '0') return env.MAILPLANE_SANDBOX === '1';
  return !env.MAILPLANE_DNS_SERVERS && !env.MAILPLANE_MX_PORT && env.NODE_ENV !== 'production';
}

/** Delivery settings from `MAILPLANE_MX_PORT` and `MAILPLANE_RETRY_DELAYS_MS` (comma-separated milliseconds). */
function deliveryFrom(env: NodeJS.ProcessEnv): MailplaneOptions['delivery'] | undefined {
  const retryDelaysMs = env.MAILPLANE_RETRY_DELAYS_MS?.split(',').map((ms) => Number(ms.trim()));
  if (!env.MAILPLANE_MX_PORT && !retryDelaysMs) return undefined;
  return { ...(env.MAILPLANE_MX_PORT && { mxPort: Number(env.MAILPLANE_MX_PORT) }), ...(retryDelaysMs && { retryDelaysMs }) };
}

/** The line the server prints about its mode, saying what it means for domains and mail. */
export function describeMode(sandbox: Sandbox | undefined, config: ExampleConfig): string {
  if (sandbox) {
    return (
      `mailplane: SANDBOX mode: domains under .test and .example verify at once (sandbox DNS on 127.0.0.1:${sandbox.dns.port}), ` +
      `and every email is delivered to the local mail catcher (127.0.0.1:${sandbox.smtpPort}) instead of the internet; ` +
      `read it at GET /api/v1/account/sandbox/message. For real delivery set MAILPLANE_SANDBOX=0 (or MAILPLANE_DNS_SERVERS, MAILPLANE_MX_PORT, NODE_ENV=production).`
    );
  }
  const mxPort = config.mailplane.delivery?.mxPort ?? 25;
  return `mailplane: LIVE mode: domains are verified in public DNS and email is delivered to recipients' mail servers (port ${mxPort}). MAILPLANE_SANDBOX=1 runs the local sandbox instead.`;
}

/** Reads {@link ExampleConfig} from `process.env`. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ExampleConfig {
  return {
    port: Number(env.PORT ?? 3000),
    host: env.HOST ?? '127.0.0.1',
    databaseUrl: env.MAILPLANE_DATABASE_URL ?? 'sqlite:./data/mailplane.db',
    dataDir: env.MAILPLANE_DATA_DIR ?? './data',
    ...(env.MAILPLANE_PUBLIC_URL && { publicUrl: env.MAILPLANE_PUBLIC_URL.replace(/\/+$/, '') }),
    accountApiKey: env.MAILPLANE_ACCOUNT_API_KEY || undefined,
    secret: env.MAILPLANE_SECRET || undefined,
    workers: env.MAILPLANE_WORKERS !== 'off',
    sandbox: sandboxWanted(env),
    metrics: env.MAILPLANE_METRICS === '1',
    ...(env.MAILPLANE_LOG_LEVEL && { logLevel: env.MAILPLANE_LOG_LEVEL }),
    mailplane: {
      ...(env.MAILPLANE_METRICS_TOKEN && { metrics: { token: env.MAILPLANE_METRICS_TOKEN } }),
      ...(env.MAILPLANE_DNS_SERVERS && { dns: { servers: parseDnsServers(env.MAILPLANE_DNS_SERVERS) } }),
      ...(deliveryFrom(env) && { delivery: deliveryFrom(env) }),
      // Webhooks to loopback and private addresses are refused unless this is set (local development).
      ...(env.MAILPLANE_WEBHOOKS_ALLOW_PRIVATE === '1' && { webhooks: { allowPrivateTargets: true } }),
      rateLimits: rateLimitsFrom(env),
      // Days messages and events are kept (docs/activity.md, "Retention"); 0 keeps them forever.
      ...(env.MAILPLANE_RETENTION_DAYS && { retention: { days: Number(env.MAILPLANE_RETENTION_DAYS) } }),
      // Automatic DKIM key rotation every N days (docs/domains.md, "DKIM key rotation"); unset: off.
      ...(env.MAILPLANE_DKIM_AUTO_ROTATE_DAYS && { domains: { dkimAutoRotateDays: Number(env.MAILPLANE_DKIM_AUTO_ROTATE_DAYS) } }),
    },
    smtp: {
      ...(env.MAILPLANE_SMTP_PORT && { port: Number(env.MAILPLANE_SMTP_PORT) }),
      ...(env.MAILPLANE_SMTPS_PORT && { tlsPort: Number(env.MAILPLANE_SMTPS_PORT) }),
      ...(env.MAILPLANE_SMTP_TLS_KEY &&
        env.MAILPLANE_SMTP_TLS_CERT && { tls: { key: readPemFile(env.MAILPLANE_SMTP_TLS_KEY, 'MAILPLANE_SMTP_TLS_KEY'), cert: readPemFile(env.MAILPLANE_SMTP_TLS_CERT, 'MAILPLANE_SMTP_TLS_CERT') } }),
      ...(env.MAILPLANE_BOUNCE_PORT && { bouncePort: Number(env.MAILPLANE_BOUNCE_PORT) }),
      feedbackAddresses: (env.MAILPLANE_FEEDBACK_ADDRESSES ?? '').split(',').map((a) => a.trim()).filter(Boolean),
      ...(env.MAILPLANE_SMTP_MAX_CLIENTS && { maxClients: Number(env.MAILPLANE_SMTP_MAX_CLIENTS) }),
      ...(env.MAILPLANE_SMTP_MAX_CONNECTIONS_PER_ADDRESS && { maxConnectionsPerAddress: Number(env.MAILPLANE_SMTP_MAX_CONNECTIONS_PER_ADDRESS) }),
    },
  };
}

/**
 * Starts the SMTP servers the configuration asks for (relays, the bounce receiver), on the same
 * host as the HTTP server. Without a certificate, relay logins over the unencrypted connection are
 * allowed from loopback clients only (the relay's default, decided per connection).
 */
export async function startSmtpServers(mailplane: Mailplane, config: ExampleConfig): Promise<SmtpListener[]> {
  const { port, tlsPort, tls, bouncePort, feedbackAddresses, maxClients, maxConnectionsPerAddress } = config.smtp;
  const limits = { ...(maxClients !== undefined && { maxClients }), ...(maxConnectionsPerAddress !== undefined && { maxConnectionsPerAddress }) };
  const relays: SmtpListener[] = [];
  const start = async (relay: SmtpListener, listenPort: number, kind: string) => {
    relays.push(relay);
    const bound = await relay.listen(listenPort, config.host);
    console.log(`mailplane: SMTP ${kind} listening on ${config.host}:${bound.port}`);
  };
  if (port !== undefined) {
    await start(createSmtpRelay(mailplane.context, { ...(tls && { tls }), ...limits }), port, `relay (${tls ? 'STARTTLS' : 'plain: logins from loopback clients only'})`);
  }
  if (tlsPort !== undefined) {
    if (!tls) throw new Error('MAILPLANE_SMTPS_PORT needs MAILPLANE_SMTP_TLS_KEY and MAILPLANE_SMTP_TLS_CERT');
    await start(createSmtpRelay(mailplane.context, { tls, secure: true, ...limits }), tlsPort, 'relay (implicit TLS)');
  }
  if (bouncePort !== undefined) {
    await start(createBounceReceiver(mailplane.context, { feedbackAddresses, ...(tls && { tls }), ...limits }), bouncePort, 'bounce and complaint receiver');
  }
  return relays;
}

/**
 * The instance secret: from the environment, else generated once and kept in `<dataDir>/secret`,
 * which only the owner can read (0600 in a 0700 directory; a file left looser by an earlier
 * version is tightened).
 */
function loadOrCreateSecret(config: ExampleConfig): string {
  if (config.secret) return config.secret;
  const file = join(config.dataDir, 'secret');
  ensurePrivateDirectory(config.dataDir, consoleLogger);
  if (existsSync(file)) {
    ensurePrivateFile(file, consoleLogger, false);
    return readFileSync(file, 'utf8').trim();
  }
  const secret = randomBytes(32).toString('base64url');
  // created empty at 0600 first, so the secret is never in a file the umask left readable
  ensurePrivateFile(file, consoleLogger);
  writeFileSync(file, `${secret}\n`, { mode: PRIVATE_FILE_MODE });
  return secret;
}

/**
 * Where this server's links point: `MAILPLANE_PUBLIC_URL` when the operator set it (the address
 * clients and recipients reach, behind a proxy or load balancer), else `localUrl`, the address the
 * HTTP server actually bound (never the configured `PORT=0`).
 */
export function publicBaseUrl(config: ExampleConfig, localUrl: string): string {
  return config.publicUrl ?? localUrl;
}

/**
 * Opens storage, creates the mailplane instance and its account; prints a generated key once.
 * `baseUrl` ({@link publicBaseUrl}) is where the HTTP server answers: the links in mail
 * (unsubscribe, open, click) are `<baseUrl>/t/…`, where the example servers mount `handleLinks`.
 */
export async function startMailplane(config: ExampleConfig, baseUrl: string): Promise<Mailplane> {
  // Structured JSON lines on stdout; an unknown level stops the start with the levels it accepts.
  const logger = pinoLogger({ level: config.logLevel });
  const store = await openExampleStore(config.databaseUrl);
  const sandbox = config.sandbox ? await startSandbox() : undefined;
  const mailplane = createMailplane({
    store,
    secret: loadOrCreateSecret(config),
    logger,
    ...config.mailplane,
    trackingBaseUrl: `${baseUrl}/t`,
    ...(sandbox && { sandbox }),
    // Direct-to-MX delivery through mailplane's resolver (MAILPLANE_DNS_SERVERS) on MAILPLANE_MX_PORT.
    transport: (ctx) =>
      mxTransport({
        resolver: ctx.resolver,
        port: ctx.config.delivery.mxPort,
        connectionTimeoutMs: ctx.config.delivery.connectionTimeoutMs,
        greetingTimeoutMs: ctx.config.delivery.greetingTimeoutMs,
        socketTimeoutMs: ctx.config.delivery.socketTimeoutMs,
      }),
    // Pools' TPSPs: their own SMTP service, with the stored security and credentials.
    tpspTransport: (tpsp) =>
      smartHostTransport({
        host: tpsp.host,
        port: tpsp.port,
        secure: tpsp.security === 'tls',
        requireTLS: tpsp.security === 'starttls',
        ...(tpsp.username !== '' && { auth: { user: tpsp.username, pass: tpsp.password } }),
      }),
  });
  console.log(describeMode(sandbox, config));
  const { generatedApiKey } = await mailplane.ensureAccount({ apiKey: config.accountApiKey });
  if (config.workers) await mailplane.start();
  if (generatedApiKey) {
    // Printed once, on the start that created the account; only its hash and ciphertext are stored.
    console.log(`mailplane: account API key (shown once, keep it): ${generatedApiKey}`);
  }
  return mailplane;
}

/** What an example server closes when it is asked to stop. */
export interface RunningExample {
  server: Server;
  smtpServers: SmtpListener[];
  mailplane: Mailplane;
}

/**
 * Closes the SMTP listeners, the HTTP server and mailplane, in that order (no new work comes in
 * while the jobs stop), on SIGINT/SIGTERM; exits 0, or 1 if closing failed.
 */
export function closeOnSignals({ server, smtpServers, mailplane }: RunningExample): void {
  const close = async () => {
    for (const smtp of smtpServers) await smtp.close();
    await new Promise((resolve) => server.close(resolve));
    await mailplane.close();
  };
  const stop = () => {
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
