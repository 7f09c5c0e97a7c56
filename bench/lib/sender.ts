/** The benchmarks' sending set-up: an account, a sub-account and a verified domain, through the router. */
import type { Mailplane } from '../../src/mailplane.js';
import { contextOf } from '../../src/instance-context.js';

/** What {@link benchSender} made: the sub-account as the API answers it. */
export interface BenchSender {
  subAccountId: number;
  apiKey: string;
  smtp: { user: string; pass: string };
}

/**
 * Creates the account `bench`, its sub-account and the domain `bench.example.com`, marked verified
 * directly (standing in for publishing DNS), in `mailplane`.
 */
export async function benchSender(mailplane: Mailplane): Promise<BenchSender> {
  const { apiKey } = await mailplane.createAccount({ name: 'bench' });
  const call = async (path: string, headers: Record<string, string>, body: unknown) => {
    const response = await mailplane.handle({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', ...headers },
      query: new URLSearchParams(),
      rawBody: JSON.stringify(body),
    });
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${response.body}`);
    return JSON.parse(response.body);
  };
  const sub = await call('/account/subaccount', { 'x-account-apikey': apiKey }, { name: 'bench' });
  const domain = await call('/subaccount/domain', { 'x-subaccount-apikey': sub.apiKey }, { name: 'bench.example.com' });
  await contextOf(mailplane).store.domains.updateVerification(sub.id, domain.id, {
    dkimVerified: true,
    verified: true,
    updated: 1n,
  });
  return {
    subAccountId: sub.id,
    apiKey: sub.apiKey,
    smtp: { user: sub.smtpAuths[0].username, pass: sub.smtpAuths[0].password },
  };
}
