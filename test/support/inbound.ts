/**
 * An inbound bench on top of the delivery bench: receiving enabled on the sender's domain, routes
 * written through the store, the inbound listener on a loopback port, a webhook receiver, and a
 * remote sender domain (`remote.test`) whose SPF, DKIM key and DMARC record the test DNS serves.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { expect, vi } from 'vitest';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { createInboundReceiver, type InboundReceiver, type InboundReceiverOptions } from 'mailplane';
import { contextOf } from '../../src/instance-context.js';
import { parsePattern } from '../../src/inbound/patterns.js';
import { nowNs } from '../../src/model/time.js';
import type { InboundAction, InboundMessageRecord, InboundRouteRecord } from '../../src/store/inbound-store.js';
import type { WebhookDeliveryConfig } from '../../src/webhook/config.js';
import type { StoreKind } from './databases.js';
import type { TestDnsServer } from './dns-server.js';
import { startDeliveryEnv, type DeliveryEnv } from './delivery-env.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

/** The domain mail comes from, with its SPF, DKIM and DMARC records published. */
export const REMOTE_DOMAIN = 'remote.test';
const REMOTE_SELECTOR = 'rs1';

/**
 * Publishes {@link REMOTE_DOMAIN}'s SPF (127.0.0.1 may send), DKIM key and DMARC (`p=reject`)
 * records on `dns`; answers nodemailer's `dkim` option that signs as that domain.
 */
export function publishRemoteSender(dns: Pick<TestDnsServer, 'txt'>): {
  domainName: string;
  keySelector: string;
  privateKey: string;
} {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const dkimPublic = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  dns.txt(`${REMOTE_SELECTOR}._domainkey.${REMOTE_DOMAIN}`, `v=DKIM1; k=rsa; p=${dkimPublic}`);
  dns.txt(REMOTE_DOMAIN, 'v=spf1 ip4:127.0.0.1 -all');
  dns.txt(`_dmarc.${REMOTE_DOMAIN}`, 'v=DMARC1; p=reject');
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { domainName: REMOTE_DOMAIN, keySelector: REMOTE_SELECTOR, privateKey: pem };
}

/** What {@link startInboundEnv} gives a test. */
export interface InboundEnv {
  env: DeliveryEnv;
  hook: WebhookReceiver;
  receiver: InboundReceiver;
  port: number;
  /** The receiving domain (the delivery bench's sending domain). */
  domain: string;
  /** Writes a route on the receiving domain; a webhook route posts to {@link InboundEnv.hook} signed with `secret`. */
  route(pattern: string, action: InboundAction): Promise<InboundRouteRecord>;
  /** The webhook routes' signing secret (`whsec_…`). */
  secret: string;
  /** Sends `mail` over SMTP to the listener from `alice@remote.test`, DKIM-signed unless `dkim` is false. */
  submit(mail: Mail.Options, options?: { dkim?: boolean }): Promise<{ response: string }>;
  /** Renames a table on a connection of the test's own (a table renamed away fails every write to it). */
  renameTable(from: string, to: string): Promise<void>;
  /** The messages the receiving sub-account has received, newest first. */
  messages(): Promise<InboundMessageRecord[]>;
  /**
   * Waits until the message's post log holds `count` POSTs. A retry is scheduled on the bench's manual
   * clock when its POST is logged, so a test advances the clock after this, not before.
   */
  postsLogged(messageId: string, count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the bench; `webhooks` overrides the webhook settings (by default private targets allowed,
 * one retry a minute after the first POST, on the bench's manual clock).
 */
export async function startInboundEnv(
  kind: StoreKind,
  options: InboundReceiverOptions = {},
  webhooks: Partial<WebhookDeliveryConfig> = {},
): Promise<InboundEnv> {
  const env = await startDeliveryEnv(
    kind,
    {},
    { webhooks: { allowPrivateTargets: true, retryDelaysMs: [60_000], ...webhooks } },
  );
  const hook = await startWebhookReceiver();
  const ctx = contextOf(env.api.mailplane);
  const subAccountId = env.sender.subAccount.id;
  const enabled = await ctx.store.inbound.enableDomain(subAccountId, env.sender.domain.id, nowNs(ctx.clock));
  if (!enabled.ok) throw new Error(`enable: ${enabled.reason}`);

  const dkim = publishRemoteSender(env.dns);

  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const receiver = createInboundReceiver(env.api.mailplane, { hostname: 'mx.mailplane.test', ...options });
  const port = (await receiver.listen(0, '127.0.0.1')).port;
  return {
    env,
    hook,
    receiver,
    port,
    domain: env.sender.domain.name,
    secret,
    async route(pattern, action) {
      const parsed = parsePattern(pattern);
      if (!parsed.ok) throw new Error(parsed.message);
      const at = nowNs(ctx.clock);
      const created = await ctx.store.inbound.createRoute({
        accountId: env.sender.subAccount.accountId,
        subAccountId,
        ...parsed.value,
        action,
        url: action === 'webhook' ? hook.url : null,
        secretSealed: action === 'webhook' ? ctx.secrets.encrypt(secret) : null,
        forwardTo: action === 'forward' ? 'elsewhere@rcpt.test' : null,
        created: at,
      });
      if (!created.ok) throw new Error(`route: ${created.reason}`);
      // Written past the API, which is what tells the listener's lookups that routes changed.
      ctx.inboundRecipients.changed();
      return created.value;
    },
    submit(mail, { dkim: sign = true } = {}) {
      return nodemailer
        .createTransport({
          host: '127.0.0.1',
          port,
          ignoreTLS: true,
          name: `mail.${REMOTE_DOMAIN}`,
          ...(sign && { dkim }),
        })
        .sendMail({ from: `Alice <alice@${REMOTE_DOMAIN}>`, ...mail });
    },
    messages: () => ctx.store.inbound.listMessages(subAccountId, { limit: 100, offset: 0 }),
    async postsLogged(messageId, count) {
      const logged = () => ctx.store.inbound.listPostAttempts(subAccountId, messageId, { limit: 100, offset: 0 });
      await vi.waitFor(async () => expect(await logged()).toHaveLength(count), { timeout: 15_000, interval: 20 });
    },
    async renameTable(from, to) {
      const sql = `ALTER TABLE ${from} RENAME TO ${to}`;
      if (env.api.url.startsWith('sqlite:')) {
        const db = new Database(env.api.url.slice('sqlite:'.length));
        db.exec(sql);
        db.close();
        return;
      }
      const client = new pg.Client({ connectionString: env.api.url });
      await client.connect();
      await client.query(sql).finally(() => client.end());
    },
    async close() {
      await receiver.close();
      await hook.close();
      await env.close();
    },
  };
}
