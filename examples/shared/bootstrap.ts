/**
 * Configuration and start-up shared by the example servers: reads the environment through the
 * schema (config-schema.ts), opens the store, makes sure the account exists, and prints a
 * generated account key once.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  consoleLogger,
  createBounceReceiver,
  createInboundReceiver,
  createMailplane,
  pinoLogger,
  createSmtpRelay,
  startSandbox,
  type LogLevel,
  type Mailplane,
  type MailplaneOptions,
  type Sandbox,
  type SmtpListener,
} from 'mailplane';
import { ensurePrivateDirectory, ensurePrivateFile, PRIVATE_FILE_MODE } from 'mailplane/storage/kysely';
import { mxTransport, smartHostTransport } from 'mailplane/transport/smtp';
import { openExampleStore, warnOnce, type FileWarnings } from './startup.js';
import { readConfigValues, type ConfigValues } from './config-schema.js';

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
  logLevel: LogLevel;
  /**
   * Options passed to createMailplane from the environment (DNS, delivery, webhooks, rate limits);
   * `trackingBaseUrl` is not one: it needs the bound address, see {@link startMailplane}.
   */
  mailplane: Pick<
    MailplaneOptions,
    | 'dns'
    | 'delivery'
    | 'webhooks'
    | 'rateLimits'
    | 'metrics'
    | 'retention'
    | 'domains'
    | 'alerts'
    | 'inbound'
    | 'shaping'
  >;
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
    /** The inbound MX listener's port (25 on the internet); `MAILPLANE_INBOUND_PORT`. */
    inboundPort?: number;
    /** Messages a minute the inbound MX listener takes from one client address; `MAILPLANE_INBOUND_RATE` (default 120). */
    inboundRate?: number;
    /** Addresses that receive complaint reports; `MAILPLANE_FEEDBACK_ADDRESSES`, comma-separated. */
    feedbackAddresses: string[];
    /** Connections at once per SMTP listener; `MAILPLANE_SMTP_MAX_CLIENTS` (default 100). */
    maxClients?: number;
    /** Connections at once from one client address per SMTP listener; `MAILPLANE_SMTP_MAX_CONNECTIONS_PER_ADDRESS` (default 20). */
    maxConnectionsPerAddress?: number;
  };
}

/**
 * Sandbox mode: `MAILPLANE_SANDBOX` when set, and otherwise on unless real DNS or delivery is
 * configured (`MAILPLANE_DNS_SERVERS`, `MAILPLANE_MX_PORT`) or `NODE_ENV` is `production`: a first
 * `npm start` then shows mail going all the way through.
 */
export function sandboxWanted(
  values: Pick<ConfigValues, 'MAILPLANE_SANDBOX' | 'MAILPLANE_DNS_SERVERS' | 'MAILPLANE_MX_PORT'>,
  nodeEnv: string | undefined,
): boolean {
  return (
    values.MAILPLANE_SANDBOX ??
    (values.MAILPLANE_DNS_SERVERS === undefined && values.MAILPLANE_MX_PORT === undefined && nodeEnv !== 'production')
  );
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

/**
 * Reads {@link ExampleConfig} from `process.env` through the schema (config-schema.ts); throws a
 * {@link ConfigurationError} naming every bad variable, before anything is opened or printed.
 */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ExampleConfig {
  const values = readConfigValues(env);
  const {
    MAILPLANE_MX_PORT: mxPort,
    MAILPLANE_RETRY_DELAYS_MS: retryDelaysMs,
    MAILPLANE_SMTP_TLS_KEY: tlsKey,
    MAILPLANE_SMTP_TLS_CERT: tlsCert,
  } = values;
  const requestsPerMinute = values.MAILPLANE_RATE_LIMIT_REQUESTS_PER_MINUTE;
  const recipientsPerMinute = values.MAILPLANE_RATE_LIMIT_RECIPIENTS_PER_MINUTE;
  return {
    port: values.PORT,
    host: values.HOST,
    databaseUrl: values.MAILPLANE_DATABASE_URL,
    dataDir: values.MAILPLANE_DATA_DIR,
    ...(values.MAILPLANE_PUBLIC_URL !== undefined && { publicUrl: values.MAILPLANE_PUBLIC_URL }),
    accountApiKey: values.MAILPLANE_ACCOUNT_API_KEY,
    secret: values.MAILPLANE_SECRET,
    workers: values.MAILPLANE_WORKERS,
    sandbox: sandboxWanted(values, env.NODE_ENV),
    metrics: values.MAILPLANE_METRICS,
    logLevel: values.MAILPLANE_LOG_LEVEL,
    mailplane: {
      // GET /metrics is served only when asked for; the token, when set, guards it.
      ...(values.MAILPLANE_METRICS && {
        metrics: values.MAILPLANE_METRICS_TOKEN === undefined ? {} : { token: values.MAILPLANE_METRICS_TOKEN },
      }),
      ...(values.MAILPLANE_DNS_SERVERS !== undefined && { dns: { servers: values.MAILPLANE_DNS_SERVERS } }),
      ...((mxPort !== undefined || retryDelaysMs !== undefined) && {
        delivery: { ...(mxPort !== undefined && { mxPort }), ...(retryDelaysMs !== undefined && { retryDelaysMs }) },
      }),
      // Webhooks to loopback and private addresses are refused unless this is set (local development).
      ...(values.MAILPLANE_WEBHOOKS_ALLOW_PRIVATE && { webhooks: { allowPrivateTargets: true } }),
      rateLimits: values.MAILPLANE_RATE_LIMITS && {
        ...(requestsPerMinute !== undefined && { requestsPerMinute }),
        ...(recipientsPerMinute !== undefined && { recipientsPerMinute }),
      },
      // Days messages and events are kept (docs/activity.md, "Retention"); 0 keeps them forever.
      ...(values.MAILPLANE_RETENTION_DAYS !== undefined && { retention: { days: values.MAILPLANE_RETENTION_DAYS } }),
      // Incident notification emails come from this address (docs/reputation.md, "Notifications").
      ...(values.MAILPLANE_ALERTS_FROM !== undefined && { alerts: { from: values.MAILPLANE_ALERTS_FROM } }),
      // The MX host receiving domains point at (docs/inbound.md); unset: receiving cannot be enabled.
      ...(values.MAILPLANE_INBOUND_HOSTNAME !== undefined && {
        inbound: { hostname: values.MAILPLANE_INBOUND_HOSTNAME },
      }),
      // How often the reputation guard evaluates (docs/reputation.md, "Evaluation"); default every minute.
      ...(values.MAILPLANE_REPUTATION_INTERVAL !== undefined && {
        reputation: { evaluationIntervalMs: values.MAILPLANE_REPUTATION_INTERVAL },
      }),
      // Traffic shaping's timings (docs/shaping.md); unset: 30 s after a slow-down reply, rules re-read every 5 s.
      ...((values.MAILPLANE_SHAPING_THROTTLE_WAIT !== undefined || values.MAILPLANE_SHAPING_CACHE !== undefined) && {
        shaping: {
          ...(values.MAILPLANE_SHAPING_THROTTLE_WAIT !== undefined && {
            throttleWaitMs: values.MAILPLANE_SHAPING_THROTTLE_WAIT,
          }),
          ...(values.MAILPLANE_SHAPING_CACHE !== undefined && { cacheMs: values.MAILPLANE_SHAPING_CACHE }),
        },
      }),
      // Automatic DKIM key rotation every N days (docs/domains.md, "DKIM key rotation"); unset: off.
      ...(values.MAILPLANE_DKIM_AUTO_ROTATE_DAYS !== undefined && {
        domains: { dkimAutoRotateDays: values.MAILPLANE_DKIM_AUTO_ROTATE_DAYS },
      }),
    },
    smtp: {
      ...(values.MAILPLANE_SMTP_PORT !== undefined && { port: values.MAILPLANE_SMTP_PORT }),
      ...(values.MAILPLANE_SMTPS_PORT !== undefined && { tlsPort: values.MAILPLANE_SMTPS_PORT }),
      // The schema refuses one file without the other, so the relay never falls back to plaintext.
      ...(tlsKey && tlsCert && { tls: { key: tlsKey.pem, cert: tlsCert.pem } }),
      ...(values.MAILPLANE_BOUNCE_PORT !== undefined && { bouncePort: values.MAILPLANE_BOUNCE_PORT }),
      ...(values.MAILPLANE_INBOUND_PORT !== undefined && { inboundPort: values.MAILPLANE_INBOUND_PORT }),
      ...(values.MAILPLANE_INBOUND_RATE !== undefined && { inboundRate: values.MAILPLANE_INBOUND_RATE }),
      feedbackAddresses: values.MAILPLANE_FEEDBACK_ADDRESSES ?? [],
      ...(values.MAILPLANE_SMTP_MAX_CLIENTS !== undefined && { maxClients: values.MAILPLANE_SMTP_MAX_CLIENTS }),
      ...(values.MAILPLANE_SMTP_MAX_CONNECTIONS_PER_ADDRESS !== undefined && {
        maxConnectionsPerAddress: values.MAILPLANE_SMTP_MAX_CONNECTIONS_PER_ADDRESS,
      }),
    },
  };
}

/**
 * Starts the SMTP servers the configuration asks for (relays, the bounce receiver, the inbound MX
 * listener), on the same
 * host as the HTTP server. Without a certificate, relay logins over the unencrypted connection are
 * allowed from loopback clients only (the relay's default, decided per connection).
 */
export async function startSmtpServers(mailplane: Mailplane, config: ExampleConfig): Promise<SmtpListener[]> {
  const {
    port,
    tlsPort,
    tls,
    bouncePort,
    inboundPort,
    inboundRate,
    feedbackAddresses,
    maxClients,
    maxConnectionsPerAddress,
  } = config.smtp;
  const limits = {
    ...(maxClients !== undefined && { maxClients }),
    ...(maxConnectionsPerAddress !== undefined && { maxConnectionsPerAddress }),
  };
  const relays: SmtpListener[] = [];
  const start = async (relay: SmtpListener, listenPort: number, kind: string) => {
    relays.push(relay);
    const bound = await relay.listen(listenPort, config.host);
    console.log(`mailplane: SMTP ${kind} listening on ${config.host}:${bound.port}`);
  };
  if (port !== undefined) {
    await start(
      createSmtpRelay(mailplane, { ...(tls && { tls }), ...limits }),
      port,
      `relay (${tls ? 'STARTTLS' : 'plain: logins from loopback clients only'})`,
    );
  }
  // readConfig refuses MAILPLANE_SMTPS_PORT without the certificate.
  if (tlsPort !== undefined && tls) {
    await start(createSmtpRelay(mailplane, { tls, secure: true, ...limits }), tlsPort, 'relay (implicit TLS)');
  }
  if (bouncePort !== undefined) {
    await start(
      createBounceReceiver(mailplane, { feedbackAddresses, ...(tls && { tls }), ...limits }),
      bouncePort,
      'bounce and complaint receiver',
    );
  }
  if (inboundPort !== undefined) {
    // Its host name is the inbound.hostname option (MAILPLANE_INBOUND_HOSTNAME) the receiver reads itself.
    await start(
      createInboundReceiver(mailplane, {
        ...(tls && { tls }),
        ...limits,
        ...(inboundRate !== undefined && { maxMessagesPerMinutePerAddress: inboundRate }),
      }),
      inboundPort,
      'inbound MX listener',
    );
  }
  return relays;
}

/**
 * The instance secret: from the environment, else generated once and kept in `<dataDir>/secret`,
 * which only the owner can read (0600 in a 0700 directory; a file left looser by an earlier
 * version is tightened).
 */
function loadOrCreateSecret(config: ExampleConfig, warnings: FileWarnings): string {
  if (config.secret) return config.secret;
  const file = join(config.dataDir, 'secret');
  ensurePrivateDirectory(config.dataDir, warnings);
  if (existsSync(file)) {
    ensurePrivateFile(file, warnings, false);
    return readFileSync(file, 'utf8').trim();
  }
  const secret = randomBytes(32).toString('base64url');
  // created empty at 0600 first, so the secret is never in a file the umask left readable
  ensurePrivateFile(file, warnings);
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
  const fileWarnings = warnOnce(consoleLogger);
  const store = await openExampleStore(config.databaseUrl, fileWarnings);
  const sandbox = config.sandbox ? await startSandbox() : undefined;
  const mailplane = createMailplane({
    store,
    secret: loadOrCreateSecret(config, fileWarnings),
    logger,
    ...config.mailplane,
    trackingBaseUrl: `${baseUrl}/t`,
    ...(sandbox && { sandbox }),
    // Direct-to-MX delivery through mailplane's resolver (MAILPLANE_DNS_SERVERS) on MAILPLANE_MX_PORT.
    transport: ({ resolver, delivery }) =>
      mxTransport({
        resolver,
        port: delivery.mxPort,
        connectionTimeoutMs: delivery.connectionTimeoutMs,
        greetingTimeoutMs: delivery.greetingTimeoutMs,
        socketTimeoutMs: delivery.socketTimeoutMs,
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
