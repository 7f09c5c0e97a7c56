import { randomToken, type SecretBox } from '../crypto/secrets.js';
import { nowNs, type Clock } from '../model/time.js';
import type { AccountRecord, MailplaneStore, SubAccountRecord } from '../store/index.js';
import { ACCOUNT_KEY_PREFIX } from './keys.js';
import { createSubAccountRecord } from './sub-accounts.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface AccountsDeps {
  readonly store: MailplaneStore;
  readonly secrets: SecretBox;
  readonly clock: Clock;
}

/** Name of the sub-account every account starts with. */
export const DEFAULT_SUBACCOUNT_NAME = 'Default';

/** A new account key: the prefix and 32 base62 characters (about 190 bits) from the CSPRNG. */
export function generateAccountKey(): string {
  return randomToken(32, ACCOUNT_KEY_PREFIX);
}

/** Options of {@link Mailplane.createAccount}. */
export interface CreateAccountOptions {
  name: string;
  /** Use this key instead of generating one (for keys given by configuration). */
  apiKey?: string;
}

/** An account and its key in clear, which is only ever available at creation. */
export interface CreateAccountResult {
  account: AccountRecord;
  apiKey: string;
  defaultSubAccount: SubAccountRecord;
}

/** Creates an account with its default sub-account, atomically. */
export async function createAccount(ctx: AccountsDeps, options: CreateAccountOptions): Promise<CreateAccountResult> {
  const apiKey = options.apiKey ?? generateAccountKey();
  return ctx.store.transaction(async (store) => {
    const account = await store.accounts.create({
      name: options.name,
      apiKeyHash: ctx.secrets.lookupHash(apiKey),
      apiKeySealed: ctx.secrets.encrypt(apiKey),
      created: nowNs(ctx.clock),
    });
    const defaultSubAccount = await createSubAccountRecord({ ...ctx, store }, account.id, {
      name: DEFAULT_SUBACCOUNT_NAME,
      companyName: '',
      type: 0,
    });
    await store.ipPools.ensureSystemPool(account.id, account.created);
    return { account, apiKey, defaultSubAccount };
  });
}

/** What {@link Mailplane.ensureAccount} did. */
export interface EnsureAccountResult {
  account: AccountRecord;
  /** The account key in clear when this call generated it (print it once), else `undefined`. */
  generatedApiKey?: string;
}

/**
 * Makes sure the single-account deployment has its account: creates it on first start, and when
 * `apiKey` is given makes it the account's key. A generated key is returned once and never again.
 */
export async function ensureAccount(
  ctx: AccountsDeps,
  options: { apiKey?: string; name?: string } = {},
): Promise<EnsureAccountResult> {
  const existing = await ctx.store.accounts.first();
  if (!existing) {
    const created = await createAccount(ctx, { name: options.name ?? 'mailplane', apiKey: options.apiKey });
    return { account: created.account, generatedApiKey: options.apiKey ? undefined : created.apiKey };
  }
  if (options.apiKey !== undefined && !ctx.secrets.matches(options.apiKey, existing.apiKeyHash)) {
    const hash = ctx.secrets.lookupHash(options.apiKey);
    await ctx.store.accounts.setApiKey(existing.id, hash, ctx.secrets.encrypt(options.apiKey));
    return { account: { ...existing, apiKeyHash: hash } };
  }
  return { account: existing };
}

/** The account a presented key belongs to, compared in constant time, or `null`. */
export async function authenticateAccount(ctx: AccountsDeps, apiKey: string): Promise<AccountRecord | null> {
  const account = await ctx.store.accounts.findByApiKeyHash(ctx.secrets.lookupHash(apiKey));
  return account && ctx.secrets.matches(apiKey, account.apiKeyHash) ? account : null;
}

/** The sub-account a presented key belongs to, compared in constant time, or `null`. */
export async function authenticateSubAccount(ctx: AccountsDeps, apiKey: string): Promise<SubAccountRecord | null> {
  const subAccount = await ctx.store.subAccounts.findByApiKeyHash(ctx.secrets.lookupHash(apiKey));
  return subAccount && ctx.secrets.matches(apiKey, subAccount.apiKeyHash) ? subAccount : null;
}
