import { ConflictError, NotFoundError } from '../errors.js';
import type { ListQuery } from '../model/paging.js';
import { nowNs } from '../model/time.js';
import type { DomainRecord, MailplaneStore } from '../store/index.js';
import { generateDkimKeyPair } from './dkim-keys.js';
import { searchTextForDomains } from './name.js';
import { planDomainHosts } from './records.js';
import { scheduleNextDomainCheck, type DomainJobDeps } from './verification-schedule.js';
import type { SecretBox } from '../crypto/secrets.js';
import type { InboundRecipientDirectory } from './recipient-directory.js';
import type { MailplaneConfig } from '../mailplane-config.js';

/** What this module uses of the instance: what it calls uses ({@link DomainJobDeps}), and the fields below. */
export interface DomainsDeps extends DomainJobDeps {
  readonly config: MailplaneConfig;
  readonly store: MailplaneStore;
  readonly secrets: SecretBox;
  readonly inboundRecipients: InboundRecipientDirectory;
}

const duplicateName = (name: string) =>
  new ConflictError('DOMAIN_EXISTS', `the domain ${name} already exists in this sub-account`);

const notFound = (id: number | string) =>
  new NotFoundError('DOMAIN_NOT_FOUND', `no domain with id ${id} in this sub-account`);

/** Operations on the sending domains of one sub-account, as the `/subaccount/domain` endpoints use them. */
export const domainService = {
  /**
   * Adds a domain (`name` already normalised by `normaliseDomainName`) with a fresh RSA DKIM key
   * (`domains.dkimKeyBits`), the private half encrypted at rest, and schedules its first DNS check. Throws 403
   * `DOMAIN_EXISTS` for a name the sub-account already has.
   */
  async create(ctx: DomainsDeps, subAccountId: number, name: string): Promise<DomainRecord> {
    // Checked first so a duplicate costs one indexed read, not a key generation; the unique index
    // still decides a race between two creates of the same name.
    if (await ctx.store.domains.findByName(subAccountId, name)) throw duplicateName(name);
    const keys = await generateDkimKeyPair(ctx.config.domains.dkimKeyBits);
    const input = {
      subAccountId,
      name,
      ...planDomainHosts(name, ctx.config.domains),
      dkimPublicKey: keys.publicKey,
      dkimPrivateKeySealed: ctx.secrets.encrypt(keys.privateKeyPem),
      created: nowNs(ctx.clock),
    };
    // The domain and its first scheduled DNS check commit together, so no domain is left without one.
    const outcome = await ctx.store.transaction(async (store) => {
      const created = await store.domains.create(input);
      if (created.ok) await scheduleNextDomainCheck(ctx, created.value, store);
      return created;
    });
    if (!outcome.ok) throw duplicateName(name);
    ctx.jobs.notify();
    return outcome.value;
  },

  async list(ctx: DomainsDeps, subAccountId: number, query: ListQuery): Promise<DomainRecord[]> {
    const search = query.search === undefined ? undefined : searchTextForDomains(query.search);
    return ctx.store.domains.list(subAccountId, { ...query, search });
  },

  async get(ctx: DomainsDeps, subAccountId: number, id: number | null): Promise<DomainRecord> {
    const domain = id === null ? null : await ctx.store.domains.get(subAccountId, id);
    if (!domain) throw notFound(id ?? 'given');
    return domain;
  },

  /** Deletes the domain and answers what it was; another sub-account's id is a 406 like a missing one. */
  async delete(ctx: DomainsDeps, subAccountId: number, id: number | null): Promise<DomainRecord> {
    const domain = id === null ? null : await ctx.store.domains.get(subAccountId, id);
    if (!domain || !(await ctx.store.domains.delete(subAccountId, domain.id))) throw notFound(id ?? 'given');
    // Its receiving (and so its routes) went with it.
    ctx.inboundRecipients.changed();
    return domain;
  },
};
