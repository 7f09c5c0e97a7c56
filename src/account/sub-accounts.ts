import { randomToken, type SecretBox } from '../crypto/secrets.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { ListQuery } from '../model/paging.js';
import { nowNs } from '../model/time.js';
import { SUBACCOUNT_KEY_PREFIX } from './keys.js';
import type {
  IncidentRecord,
  MailplaneStore,
  SmtpAuthRecord,
  SubAccountRecord,
  SubAccountType,
} from '../store/index.js';
import { blockIncidentTopic, closeTopicIncident } from '../alerts/topics.js';
import { notifyProtectionIncident, type ProtectionApiDeps } from '../alerts/protection-api.js';
import type { MailplaneJobs } from '../jobs/kinds.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../logging/logger.js';

/** What this module uses of the instance: what it calls uses ({@link ProtectionApiDeps}), and the fields below. */
export interface SubAccountsDeps extends ProtectionApiDeps {
  readonly secrets: SecretBox;
  readonly logger: Logger;
  readonly jobs: JobQueue<MailplaneJobs>;
}

/** A sub-account with its SMTP credentials: what the API shows. */
export interface SubAccountView {
  subAccount: SubAccountRecord;
  smtpAuths: SmtpAuthRecord[];
}

/** The fields a caller gives to create a sub-account. */
export interface CreateSubAccountInput {
  name: string;
  companyName: string;
  type: SubAccountType;
}

/** The fields a caller can change on a sub-account. */
export interface UpdateSubAccountInput {
  name?: string;
  blocked?: boolean;
  blockReason?: string;
  /** Days its messages and events are kept; `null` returns it to the instance's retention. */
  retentionDays?: number | null;
}

const duplicateName = (name: string) =>
  new ConflictError('SUBACCOUNT_NAME_TAKEN', `a sub-account named "${name}" already exists in this account`);

const notFound = (id: number | string) =>
  new NotFoundError('SUBACCOUNT_NOT_FOUND', `no sub-account with id ${id} in this account`);

/**
 * Creates the sub-account with a fresh API key and SMTP credentials (CSPRNG, stored as a keyed
 * hash plus ciphertext). Throws 403 when the name is taken. Used for the default sub-account too.
 */
export async function createSubAccountRecord(
  ctx: Pick<SubAccountsDeps, 'store' | 'secrets' | 'clock'>,
  accountId: number,
  input: CreateSubAccountInput,
): Promise<SubAccountRecord> {
  const apiKey = randomToken(32, SUBACCOUNT_KEY_PREFIX);
  const password = randomToken(32);
  const outcome = await ctx.store.subAccounts.create({
    accountId,
    name: input.name,
    companyName: input.companyName,
    type: input.type,
    apiKeyHash: ctx.secrets.lookupHash(apiKey),
    apiKeySealed: ctx.secrets.encrypt(apiKey),
    created: nowNs(ctx.clock),
    smtpAuth: {
      // Usernames are random rather than derived from the name: they are global (the relay finds
      // the tenant by them) and must not change when the sub-account is renamed.
      username: randomToken(20, 'smtp_'),
      passwordHash: ctx.secrets.lookupHash(password),
      passwordSealed: ctx.secrets.encrypt(password),
    },
  });
  if (!outcome.ok) throw duplicateName(input.name);
  return outcome.value;
}

async function withSmtpAuths(ctx: SubAccountsDeps, subAccounts: SubAccountRecord[]): Promise<SubAccountView[]> {
  const auths = await ctx.store.subAccounts.listSmtpAuths(subAccounts.map((s) => s.id));
  return subAccounts.map((subAccount) => ({
    subAccount,
    smtpAuths: auths.filter((auth) => auth.subAccountId === subAccount.id),
  }));
}

/** Operations on the sub-accounts of one account, as the `/account/subaccount` endpoints use them. */
export const subAccountService = {
  async create(ctx: SubAccountsDeps, accountId: number, input: Omit<CreateSubAccountInput, 'type'>) {
    const record = await createSubAccountRecord(ctx, accountId, { ...input, type: 1 });
    const [view] = await withSmtpAuths(ctx, [record]);
    return view!;
  },

  async list(ctx: SubAccountsDeps, accountId: number, query: ListQuery): Promise<SubAccountView[]> {
    return withSmtpAuths(ctx, await ctx.store.subAccounts.list(accountId, query));
  },

  async get(ctx: SubAccountsDeps, accountId: number, id: number | null): Promise<SubAccountView> {
    const record = id === null ? null : await ctx.store.subAccounts.get(accountId, id);
    if (!record) throw notFound(id ?? 'given');
    const [view] = await withSmtpAuths(ctx, [record]);
    return view!;
  },

  async update(
    ctx: SubAccountsDeps,
    accountId: number,
    id: number | null,
    input: UpdateSubAccountInput,
  ): Promise<SubAccountView> {
    if (id === null) throw notFound('given');
    const now = nowNs(ctx.clock);
    const patch = {
      name: input.name,
      updated: now,
      ...(input.blocked === true && { blocked: true, blockedAt: now, blockReason: input.blockReason ?? '' }),
      ...(input.blocked === false && { blocked: false, blockedAt: 0n, blockReason: '' }),
      ...(input.blocked === undefined && input.blockReason !== undefined && { blockReason: input.blockReason }),
      ...(input.retentionDays !== undefined && { retentionDays: input.retentionDays }),
    };
    // The operator's undo of an automatic block is recorded on its incident, in the same transaction;
    // blocking by hand opens none.
    let unblocked: IncidentRecord | null = null;
    const apply = async (store: MailplaneStore) => {
      const updated = await store.subAccounts.update(accountId, id, patch);
      if (updated.ok && input.blocked === false)
        unblocked = await closeTopicIncident(
          { store, clock: ctx.clock },
          {
            accountId,
            topic: blockIncidentTopic(id),
            by: 'operator',
            action: 'unblocked',
            detail: 'unblocked through the API',
            notify: (tx, incident) => notifyProtectionIncident(ctx, tx, incident, 'resolved'),
          },
        );
      return updated;
    };
    const outcome = input.blocked === false ? await ctx.store.transaction(apply) : await apply(ctx.store);
    if (unblocked) ctx.jobs.notify();
    if (!outcome.ok) throw outcome.reason === 'not-found' ? notFound(id) : duplicateName(input.name ?? '');
    const [view] = await withSmtpAuths(ctx, [outcome.value]);
    return view!;
  },

  /** Deletes a custom sub-account; the default one (type 0) answers 406 as the reference says. */
  async delete(ctx: SubAccountsDeps, accountId: number, id: number | null): Promise<SubAccountRecord> {
    const record = id === null ? null : await ctx.store.subAccounts.get(accountId, id);
    if (!record) throw notFound(id ?? 'given');
    if (record.type === 0) {
      throw new NotFoundError('DEFAULT_SUBACCOUNT_UNDELETABLE', 'the default sub-account cannot be deleted');
    }
    await ctx.store.subAccounts.delete(accountId, record.id);
    return record;
  },
};
