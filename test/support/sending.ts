/** A sub-account with a sending domain, ready to send through the API. */
import type { TestApi } from './api.js';
import { contextOf } from '../../src/instance-context.js';

/** What {@link createSender} sets up. */
export interface Sender {
  subAccount: {
    id: number;
    accountId: number;
    apiKey: string;
    name: string;
    smtpAuths: Array<{ username: string; password: string }>;
  };
  domain: { id: number; name: string };
}

/**
 * Creates a sub-account and a sending domain through the API. With `verified` (the default) the
 * domain is marked verified in storage, standing in for the DNS check of the domain issue.
 */
export async function createSender(api: TestApi, name: string, domainName: string, verified = true): Promise<Sender> {
  const sub = await api.call('POST', '/account/subaccount', { account: api.accountKey, body: { name } });
  if (sub.status !== 201) throw new Error(`sub-account: ${sub.text}`);
  const domain = await api.call('POST', '/subaccount/domain', { sub: sub.body.apiKey, body: { name: domainName } });
  if (domain.status !== 200) throw new Error(`domain: ${domain.text}`);
  if (verified) {
    await contextOf(api.mailplane).store.domains.updateVerification(sub.body.id, domain.body.id, {
      dkimVerified: true,
      verified: true,
      updated: 1n,
    });
  }
  return { subAccount: sub.body, domain: domain.body };
}

/** A minimal valid send body from `from` to `to` addresses. */
export function sendBody(from: string, to: string[], extra: Record<string, unknown> = {}) {
  return {
    from: { email: from, name: 'Sender' },
    to: to.map((email) => ({ email })),
    subject: 'Hello',
    textBody: 'Hi',
    ...extra,
  };
}
