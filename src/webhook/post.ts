/**
 * One webhook POST: the target checked at delivery time (the URL's literal host, and every address
 * its name resolves to, so DNS rebinding cannot point a registered name at 127.0.0.1 later), the
 * connection pinned to the address that was checked, the body signed when the attempt is made,
 * redirects not followed. Each step has its own deadline (connection, response headers, body), and
 * the attempt is decided by the status line, so a receiver that drips its answer cannot hold it.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import type { DnsResolver } from '../dns/resolver.js';
import { classifyAddress } from '../model/address-class.js';
import { checkWebhookTarget } from './target.js';
import { signWebhookPayload, standardWebhookHeaders, WEBHOOK_SIGNATURE_HEADER } from './signature.js';

/** What one attempt came to. `retry: false`: trying again cannot help (the target is refused). */
export type WebhookAttempt =
  { ok: true; status: number } | { ok: false; retry: boolean; error: string; status?: number };

/** What {@link postWebhook} needs besides the target. */
export interface PostWebhookOptions {
  resolver: Pick<DnsResolver, 'resolveA' | 'resolveAaaa'>;
  allowPrivateTargets: boolean;
  /** The connections to use (kept alive between POSTs), owned by the caller. */
  agents: WebhookAgents;
  /** From the start of the request to the response's headers, connection included. */
  timeoutMs: number;
  /** From the start of the request to a connection ready for it (TCP, and TLS for `https`). */
  connectTimeoutMs: number;
  /** After the headers: how long the body is read before its connection is destroyed. */
  bodyTimeoutMs: number;
  /** Time of the attempt (epoch ms): the signature's `t` and `webhook-timestamp`. */
  nowMs: number;
  /** The Standard Webhooks `webhook-id`: the event's id, the same on every retry and replay. */
  messageId: string;
  /** Set on a replayed event: sent as {@link WEBHOOK_REPLAY_HEADER}. */
  replayId?: string;
}

/** The header naming the replay a delivery belongs to (the body's `replay` field says the same, signed). */
export const WEBHOOK_REPLAY_HEADER = 'X-Mailplane-Replay';

/** Response bytes read before the connection is dropped: the status is all that counts. */
const MAX_RESPONSE_BYTES = 64 * 1024;

const USER_AGENT = 'mailplane-webhooks/1';

/**
 * The connections of one sender. They are kept alive between POSTs to the same receiver (a TLS
 * handshake per event would cost more than the event). A kept connection goes to an address that
 * was checked when it was opened; a new one is checked again.
 */
export class WebhookAgents {
  readonly http = new HttpAgent({ keepAlive: true, maxSockets: 16 });
  readonly https = new HttpsAgent({ keepAlive: true, maxSockets: 16 });

  /** Destroys every connection, kept or still reading an answer's body. */
  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

/**
 * Reads what is left of an answer after the attempt was decided, only so its connection can be
 * kept: at most {@link MAX_RESPONSE_BYTES} and for `deadlineMs`, after which the connection is
 * destroyed rather than returned to the pool.
 */
function drainAnswer(res: IncomingMessage, deadlineMs: number): void {
  let read = 0;
  const timer = setTimeout(() => res.destroy(), deadlineMs);
  res.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > MAX_RESPONSE_BYTES) res.destroy();
  });
  res.once('close', () => clearTimeout(timer));
  // The attempt is already decided: a reset while draining changes nothing.
  res.on('error', () => {});
}

/** The addresses to connect to for `host` (an IP literal stands for itself), or why there are none. */
async function addressesOf(
  host: string,
  resolver: PostWebhookOptions['resolver'],
): Promise<{ ok: true; addresses: string[] } | { ok: false; error: string }> {
  if (classifyAddress(host) !== 'invalid') return { ok: true, addresses: [host] };
  const [v4, v6] = await Promise.all([resolver.resolveA(host), resolver.resolveAaaa(host)]);
  const addresses = [...(v4.ok ? v4.records : []), ...(v6.ok ? v6.records : [])];
  if (addresses.length > 0) return { ok: true, addresses };
  const failure = !v4.ok ? v4 : !v6.ok ? v6 : null;
  return { ok: false, error: `DNS: ${host} has no address${failure ? ` (${failure.reason}: ${failure.detail})` : ''}` };
}

/**
 * POSTs `body` to `url` signed with `secrets` (the current one first; during a rotation the previous
 * one too; none: unsigned, for receivers without a secret such as Slack's incoming webhooks). A 2xx status is success as soon as the headers arrive; any other status, a missed
 * deadline or a network failure may be retried; a target outside the allowed address ranges is
 * refused without a connection and is not retried. The promise settles with the headers; the body
 * is read afterwards, within `bodyTimeoutMs`, only to keep the connection.
 */
export async function postWebhook(
  url: string,
  body: string,
  secrets: readonly string[],
  options: PostWebhookOptions,
): Promise<WebhookAttempt> {
  const check = checkWebhookTarget(url, { allowPrivateTargets: options.allowPrivateTargets });
  if (!check.allowed) return { ok: false, retry: false, error: `target refused: ${check.category} address` };
  const resolved = await addressesOf(check.host, options.resolver);
  if (!resolved.ok) return { ok: false, retry: true, error: resolved.error };
  if (!options.allowPrivateTargets) {
    const refused = resolved.addresses.find((address) => classifyAddress(address) !== 'public');
    if (refused)
      return {
        ok: false,
        retry: false,
        error: `target refused: ${check.host} resolves to ${classifyAddress(refused)} address ${refused}`,
      };
  }
  const address = resolved.addresses[0]!;
  const family = address.includes(':') ? 6 : 4;
  // The connection goes to the address checked above, never to a second lookup's answer. TLS
  // still verifies the certificate against the URL's host name.
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) =>
    lookupOptions.all ? callback(null, [{ address, family }]) : callback(null, address, family);
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const bytes = Buffer.from(body, 'utf8');
  const requestOptions: RequestOptions = {
    method: 'POST',
    lookup,
    headers: {
      'content-type': 'application/json',
      'content-length': bytes.length,
      'user-agent': USER_AGENT,
      // No secret: a POST to a receiver that has none (a Slack incoming webhook), unsigned.
      ...(secrets.length > 0 && {
        ...standardWebhookHeaders(secrets, options.messageId, Math.floor(options.nowMs / 1000), bytes),
        [WEBHOOK_SIGNATURE_HEADER]: signWebhookPayload(secrets, Math.floor(options.nowMs / 1000), bytes),
      }),
      ...(options.replayId !== undefined && { [WEBHOOK_REPLAY_HEADER]: options.replayId }),
    },
    agent: secure ? options.agents.https : options.agents.http,
  };
  return new Promise<WebhookAttempt>((resolve) => {
    let settled = false;
    const settle = (result: WebhookAttempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(headersTimer);
      resolve(result);
    };
    const req = (secure ? httpsRequest : httpRequest)(target, requestOptions, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      // Decided by the status line: the receiver has answered, whatever its body does next.
      settle(
        status >= 200 && status < 300
          ? { ok: true, status }
          : { ok: false, retry: true, status, error: `HTTP ${status}` },
      );
      drainAnswer(res, options.bodyTimeoutMs);
    });
    const abandon = (reason: string) => req.destroy(new Error(reason));
    const connectTimer = setTimeout(
      () => abandon(`no connection within ${options.connectTimeoutMs} ms`),
      options.connectTimeoutMs,
    );
    const headersTimer = setTimeout(() => abandon(`no response within ${options.timeoutMs} ms`), options.timeoutMs);
    req.once('socket', (socket: Socket) => {
      const connected = () => clearTimeout(connectTimer);
      // A kept-alive connection is ready; a new one is once connected (and, for TLS, its handshake done).
      if (req.reusedSocket || (!secure && !socket.connecting)) connected();
      else socket.once(secure ? 'secureConnect' : 'connect', connected);
    });
    req.on('error', (error) => settle({ ok: false, retry: true, error: error.message }));
    req.end(bytes);
  });
}
