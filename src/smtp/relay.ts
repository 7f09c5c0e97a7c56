/**
 * The SMTP relay: clients submit mail over SMTP with a sub-account's SMTP credentials, and it goes
 * through the same pipeline as `POST /subaccount/email` (src/smtp/ingest.ts). smtp-server speaks
 * the protocol: STARTTLS (RFC 3207) on plain ports (25, 2525, 587), implicit TLS (port 465), AUTH
 * PLAIN and LOGIN (RFC 4954), SIZE, PIPELINING, 8BITMIME, SMTPUTF8.
 *
 * It is not an open relay: nothing is accepted before a successful AUTH, AUTH is refused on an
 * unencrypted connection except from a loopback client or as `allowInsecureAuth` says, and the
 * From domain must be a verified sending domain of the authenticated sub-account. Passwords are
 * compared in constant time and never logged; failed logins are slowed per client address and
 * per username, and an address that keeps failing is locked out (src/smtp/login-throttle.ts).
 * A `RCPT TO` the API would drop as invalid is refused `553 5.1.3`, and a `MAIL FROM` with
 * invisible or text-direction characters `553 5.1.7` (src/model/email-address.ts).
 * Once a message is answered 250 it is committed (batch, messages, delivery job); any failure
 * before that is answered 4xx, so the client keeps the message and retries.
 */
import { sessionLog } from './session-log.js';
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerSession } from 'smtp-server';
import { contextOf } from '../instance-context.js';
import type { Mailplane } from '../mailplane.js';
import { createRateLimiter } from '../rate-limits/limiter.js';
import { acceptSend, senderDomain } from '../sending/accept.js';
import { MAX_RECIPIENTS_PER_REQUEST } from '../sending/request.js';
import type { SubAccountRecord } from '../store/index.js';
import { connectionGuard, isLoopbackAddress } from './connection-guard.js';
import { smtpErrorReply, smtpReplyFor } from './errors.js';
import { sendRequestOf } from './ingest.js';
import { checkIdempotencyKey, requestHash, sendIdempotently } from '../idempotency/keys.js';
import { stringifyJson } from '../model/json.js';
import { emailAddressProblem } from '../model/email-address.js';
import { codePointLabel, firstInvisibleCharacter } from '../model/invisible.js';
import { clientKey, LoginThrottle, type LoginThrottleOptions } from './login-throttle.js';
import { parseReceivedMime, readMessage, smtpListener, smtpReply as reply, type SmtpListener } from './server.js';

/** Options of {@link createSmtpRelay}. */
export interface SmtpRelayOptions {
  /** Implicit TLS from the first byte (port 465); needs `tls`. Default false: STARTTLS when `tls` is given. */
  secure?: boolean;
  /** PEM private key and certificate chain for TLS. Without them only unencrypted sessions are possible. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /**
   * Who may log in on a connection that is not under TLS: `true` anyone, `false` no one, or a
   * function of the client's address (an IPv4-mapped address comes as plain IPv4). Default:
   * loopback clients (127.0.0.0/8, ::1) when the relay has no `tls`, no one when it has (STARTTLS
   * is on offer). Where it says no, EHLO does not offer AUTH and AUTH is `538 5.7.11`.
   */
  allowInsecureAuth?: boolean | ((remoteAddress: string) => boolean);
  /** Largest message accepted, in bytes, announced with SIZE (default 25 MB, as SendGrid's relay accepts 30 MB). */
  maxMessageBytes?: number;
  /** Name in the greeting and EHLO reply (default the host name). */
  hostname?: string;
  /** Connections served at once (default 100); more are answered 421. */
  maxClients?: number;
  /** Connections at once from one client address, an IPv6 client by its /64 (default 20); more are answered `421 4.7.0`. */
  maxConnectionsPerAddress?: number;
  /**
   * Bytes of messages being received held at once, all connections together (default 256 MB, and
   * never below `maxMessageBytes`); a message that does not fit is read, discarded and answered `452 4.3.1`.
   */
  maxBufferedBytes?: number;
  /** Slowing and lockout of failed logins (defaults in {@link LoginThrottleOptions} and docs/smtp-relay.md). */
  loginThrottle?: LoginThrottleOptions;
  /** Idle time before a connection is closed (default 60 s). */
  socketTimeoutMs?: number;
}

/** A relay listening on one port; create one per port. */
export type SmtpRelay = SmtpListener;

const subAccountOf = (session: SMTPServerSession) => session.user as SubAccountRecord;

/**
 * Creates the SMTP relay of a mailplane instance (what `createMailplane` returned).
 *
 * @example
 * const tls = { key: readFileSync('relay-key.pem'), cert: readFileSync('relay-cert.pem') };
 * const relay = createSmtpRelay(mailplane, { tls });
 * await relay.listen(587);
 * const implicit = createSmtpRelay(mailplane, { tls, secure: true });
 * await implicit.listen(465);
 */
export function createSmtpRelay(mailplane: Mailplane, options: SmtpRelayOptions = {}): SmtpRelay {
  const ctx = contextOf(mailplane);
  if (options.secure && !options.tls)
    throw new Error('createSmtpRelay: implicit TLS (secure) needs tls.key and tls.cert');
  const maxMessageBytes = options.maxMessageBytes ?? 25 * 1024 * 1024;
  // A stand-in hash so that an unknown user costs the same comparison as a wrong password.
  const decoy = ctx.secrets.lookupHash('mailplane-smtp-decoy');
  const throttle = new LoginThrottle(options.loginThrottle ?? {}, ctx.clock);
  const insecure = options.allowInsecureAuth;
  const guard = connectionGuard({
    maxMessageBytes,
    maxConnectionsPerAddress: options.maxConnectionsPerAddress ?? 20,
    throttle,
    cleartextAuth:
      typeof insecure === 'function'
        ? insecure
        : insecure !== undefined
          ? () => insecure
          : options.tls
            ? () => false
            : isLoopbackAddress,
  });
  const budget = { used: 0, max: Math.max(options.maxBufferedBytes ?? 256 * 1024 * 1024, maxMessageBytes) };
  const lockedOut = () => reply(421, '4.7.0 Too many failed logins from your address, try again later');

  // The API's recipient allowance: a sub-account's relayed recipients draw from the same counter
  // as its API sends, so the relay is no way around it.
  const limiter = ctx.config.rateLimits === false ? null : createRateLimiter(ctx, ctx.config.rateLimits);

  const sessions = sessionLog(ctx, 'smtp relay');
  const server = new SMTPServer({
    secure: options.secure ?? false,
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : { hideSTARTTLS: true }),
    ...(options.hostname !== undefined && { name: options.hostname }),
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: false,
    // The guard decides who may log in without TLS (smtp-server would only refuse with STARTTLS on offer).
    allowInsecureAuth: true,
    size: maxMessageBytes,
    maxClients: options.maxClients ?? 100,
    socketTimeout: options.socketTimeoutMs ?? 60_000,
    disableReverseLookup: true,
    logger: false,
    onConnect: (session, callback) => (sessions.opened(session), guard.onConnect(session, callback)),
    onClose: (session) => (guard.onClose(session), sessions.closed(session)),
    onAuth(auth: SMTPServerAuthentication, session, callback) {
      const address = clientKey(session.remoteAddress);
      // A locked-out address gets no answer about any credential.
      if (throttle.lockedFor(address) > 0) return callback(lockedOut());
      const username = auth.username ?? '';
      const password = auth.password ?? '';
      /** The same path, delay and reply whether the username exists or not. */
      const failed = () => {
        ctx.metrics.smtpAuthFailures.inc();
        const { delayMs, lockedOut: locked } = throttle.failure(address, username);
        const answer = locked ? lockedOut() : reply(535, '5.7.8 Authentication credentials invalid');
        if (delayMs === 0) return callback(answer);
        setTimeout(() => callback(answer), delayMs).unref();
      };
      ctx.store.subAccounts.findBySmtpUsername(username).then(
        (login) => {
          // Checked again: logins sent at once on parallel connections were all looked up before
          // one of them reached the lockout, and none of those may still be compared.
          if (throttle.lockedFor(address) > 0) return callback(lockedOut());
          const matches = ctx.secrets.matches(password, login?.smtpAuth.passwordHash ?? decoy);
          if (!login || !matches) return failed();
          throttle.success(username);
          if (login.subAccount.blocked)
            return callback(reply(535, '5.7.1 This sub-account is blocked and cannot send'));
          callback(null, { user: login.subAccount });
        },
        (error: unknown) => {
          ctx.logger.error('smtp relay: login lookup failed', {
            error: error instanceof Error ? error.message : String(error),
          });
          callback(reply(454, '4.7.0 Temporary authentication failure'));
        },
      );
    },
    onMailFrom(address, _session, callback) {
      // The message's sender is its From header, checked in full with the send; the envelope
      // sender is otherwise unused, so only what disguises an address is refused here.
      const invisible = firstInvisibleCharacter(address.address);
      if (invisible !== null)
        return callback(
          reply(
            553,
            `5.1.7 The sender address must not contain invisible or text-direction characters (found ${codePointLabel(invisible)})`,
          ),
        );
      callback();
    },
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS_PER_REQUEST)
        return callback(reply(452, `4.5.3 At most ${MAX_RECIPIENTS_PER_REQUEST} recipients per message`));
      // Each envelope recipient becomes a message: one the API would drop as invalid is refused
      // here, where the client still hears about it.
      const problem = emailAddressProblem(address.address);
      if (problem !== null) return callback(reply(553, `5.1.3 The recipient address ${problem}`));
      callback();
    },
    onData(stream, session, callback) {
      const failed = (error: unknown) =>
        ctx.logger.error('smtp relay: accepting a message failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      const accept = async (raw: Buffer) => {
        const text = await submit(raw, session);
        sessions.accepted(session);
        return text;
      };
      readMessage(stream, callback, accept, failed, budget);
    },
  });

  /** Runs one submitted message through the pipeline; answers the 250 text or throws a reply. */
  async function submit(raw: Buffer, session: SMTPServerSession): Promise<string> {
    const subAccount = subAccountOf(session);
    const mail = await parseReceivedMime(raw);
    const built = sendRequestOf(
      mail,
      session.envelope.rcptTo.map((r) => r.address),
    );
    if (!built.ok) throw reply(550, built.reply);
    const sender = await senderDomain(ctx.store, subAccount.id, built.request.from.email);
    if (sender.drop) throw reply(550, `5.7.1 ${sender.drop.detail}`);
    const limited =
      limiter &&
      (await limiter.hit({ kind: 'subaccount', id: subAccount.id }, 'recipients', built.request.to.length)).refusal;
    // 450 rather than 451 (a fault here): the client's to wait out, as the API's 429.
    if (limited) throw reply(450, `4.7.1 ${limited.message}`);
    try {
      const key = checkIdempotencyKey(built.idempotencyKey, 'X-Mailplane-Idempotency-Key');
      // With a key, a message the client submits again (its connection broke before the 250) is
      // answered as the first was, from the stored response, and not sent twice.
      const claim = key === undefined ? undefined : { key, requestHash: requestHash('smtp', built.request) };
      const send = () => acceptSend(ctx, subAccount, built.request, { idempotency: claim, senderDomain: sender });
      // Only a keyed send goes through JSON: its answer is the stored one, which a replay reads back.
      const replayable = async () =>
        JSON.parse(
          (await sendIdempotently(ctx, subAccount.id, claim!, async () => stringifyJson(await send()))).response,
        ) as Array<{ messageId: string }>;
      const entries = claim ? await replayable() : await send();
      const first = entries[0]?.messageId ?? '';
      return `2.0.0 Ok: queued ${entries.length} message${entries.length === 1 ? '' : 's'} as ${first}`;
    } catch (error) {
      // What the API refuses is the client's to fix: refused here. A fault goes on to readMessage,
      // which logs it and answers it from the same table (451, retried).
      if (!smtpErrorReply(error).fault) throw smtpReplyFor(error);
      throw error;
    }
  }

  guard.attach(server);
  return smtpListener(server, ctx.logger, 'smtp relay');
}
