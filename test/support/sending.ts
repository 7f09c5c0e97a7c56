/** A sub-account with a sending domain, ready to send through the API. */
import { createSubAccount, type CreatedSubAccount, type TestApi } from './api.js';
import { contextOf } from '../../src/instance-context.js';

/** What {@link createSender} sets up. */
export interface Sender {
  subAccount: CreatedSubAccount;
  domain: { id: number; name: string };
}

/**
 * Creates a sub-account and a sending domain through the API. With `verified` (the default) the
 * domain is marked verified in storage, standing in for the DNS check of the domain issue.
 */
export async function createSender(api: TestApi, name: string, domainName: string, verified = true): Promise<Sender> {
  const subAccount = await createSubAccount(api, name);
  const domain = await api.call('POST', '/subaccount/domain', { sub: subAccount.apiKey, body: { name: domainName } });
  if (domain.status !== 200) throw new Error(`domain: ${domain.text}`);
  if (verified) {
    await contextOf(api.mailplane).store.domains.updateVerification(subAccount.id, domain.body.id, {
      dkimVerified: true,
      verified: true,
      updated: 1n,
    });
  }
  return { subAccount, domain: domain.body };
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
