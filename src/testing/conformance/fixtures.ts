import { randomUUID } from 'node:crypto';
import type { MailplaneStore, NewSubAccount, SubAccountRecord } from '../../store/index.js';

/** A unique string for fields that must not collide between fixtures (122 random bits: no counter to share). */
export const unique = (label: string) => `${label}-${randomUUID()}`;

/** A valid sub-account for `accountId`, with every secret field filled by unique placeholders. */
export function sampleSubAccount(accountId: number, name: string, type: 0 | 1 = 1): NewSubAccount {
  return {
    accountId,
    name,
    companyName: 'Acme',
    type,
    apiKeyHash: unique('hash'),
    apiKeySealed: unique('sealed'),
    created: 1_700_000_000_000_000_000n,
    smtpAuth: { username: unique('user'), passwordHash: unique('phash'), passwordSealed: unique('psealed') },
  };
}

/** Creates an account with placeholder key fields. */
export async function newAccount(store: MailplaneStore, name = 'acct') {
  return store.accounts.create({ name, apiKeyHash: unique('akh'), apiKeySealed: unique('aks'), created: 1n });
}

/** Creates a sub-account of `accountId`, throwing if the store refuses it. */
export async function newSubAccount(
  store: MailplaneStore,
  accountId: number,
  name = unique('sub'),
): Promise<SubAccountRecord> {
  const outcome = await store.subAccounts.create(sampleSubAccount(accountId, name));
  if (!outcome.ok) throw new Error(`fixture sub-account ${name}: ${outcome.reason}`);
  return outcome.value;
}
