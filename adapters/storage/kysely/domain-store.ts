import type { Selectable } from 'kysely';
import { failure, success } from '../../../src/store/outcome.js';
import type {
  DkimKeysPatch,
  DomainRecord,
  DomainStore,
  DomainVerificationPatch,
  NewDomain,
} from '../../../src/store/index.js';
import type { KyselyStoreContext } from './context.js';
import { containsText } from './dialect.js';
import { fromBool, toBigint, toBool, toNumber } from './rows.js';
import type { DomainsTable } from './tables/domains.js';

/** A `domains` row as the core's {@link DomainRecord}. */
export function toDomain(row: Selectable<DomainsTable>): DomainRecord {
  return {
    id: toNumber(row.id),
    subAccountId: toNumber(row.sub_account_id),
    name: row.name,
    dkimSelector: row.dkim_selector,
    dkimPublicKey: row.dkim_public_key,
    dkimPrivateKeySealed: row.dkim_private_key_sealed,
    returnPathHost: row.return_path_host,
    returnPathTarget: row.return_path_target,
    trackHost: row.track_host,
    trackTarget: row.track_target,
    dkimVerified: toBool(row.dkim_verified),
    spfVerified: toBool(row.spf_verified),
    dmarcVerified: toBool(row.dmarc_verified),
    returnPathVerified: toBool(row.return_path_verified),
    trackVerified: toBool(row.track_verified),
    verified: toBool(row.verified),
    dkimFailureReason: row.dkim_failure_reason,
    spfFailureReason: row.spf_failure_reason,
    dmarcFailureReason: row.dmarc_failure_reason,
    trackFailureReason: row.track_failure_reason,
    returnPathFailureReason: row.return_path_failure_reason,
    dnsProvider: row.dns_provider,
    domainRegisteredDate: row.domain_registered_date,
    lastCheckedAt: toBigint(row.last_checked_at),
    created: toBigint(row.created),
    updated: toBigint(row.updated),
    dkimPending:
      row.dkim_pending_selector === ''
        ? null
        : {
            selector: row.dkim_pending_selector,
            publicKey: row.dkim_pending_public_key,
            privateKeySealed: row.dkim_pending_private_key_sealed,
            created: toBigint(row.dkim_pending_created),
            failureReason: row.dkim_pending_failure_reason,
          },
    dkimPrevious:
      row.dkim_previous_selector === ''
        ? null
        : {
            selector: row.dkim_previous_selector,
            publicKey: row.dkim_previous_public_key,
            retireAt: toBigint(row.dkim_previous_retire_at),
          },
    dkimRotatedAt: toBigint(row.dkim_rotated_at),
  };
}

/** A {@link DkimKeysPatch} as column values; an absent key is stored as empty columns. */
function dkimKeyValues(patch: DkimKeysPatch): Partial<Record<keyof DomainsTable, unknown>> {
  const values: Partial<Record<keyof DomainsTable, unknown>> = { updated: patch.updated };
  if (patch.current) {
    values.dkim_selector = patch.current.selector;
    values.dkim_public_key = patch.current.publicKey;
    values.dkim_private_key_sealed = patch.current.privateKeySealed;
  }
  if (patch.pending !== undefined) {
    const p = patch.pending;
    values.dkim_pending_selector = p?.selector ?? '';
    values.dkim_pending_public_key = p?.publicKey ?? '';
    values.dkim_pending_private_key_sealed = p?.privateKeySealed ?? '';
    values.dkim_pending_created = p?.created ?? 0n;
    values.dkim_pending_failure_reason = p?.failureReason ?? '';
  }
  if (patch.previous !== undefined) {
    values.dkim_previous_selector = patch.previous?.selector ?? '';
    values.dkim_previous_public_key = patch.previous?.publicKey ?? '';
    values.dkim_previous_retire_at = patch.previous?.retireAt ?? 0n;
  }
  if (patch.rotatedAt !== undefined) values.dkim_rotated_at = patch.rotatedAt;
  if (patch.dkimVerified !== undefined) values.dkim_verified = fromBool(patch.dkimVerified);
  if (patch.verified !== undefined) values.verified = fromBool(patch.verified);
  if (patch.dkimFailureReason !== undefined) values.dkim_failure_reason = patch.dkimFailureReason;
  return values;
}

/** Patch fields -> columns; flags become the 0/1 integers both dialects store. */
const flagColumns = {
  dkimVerified: 'dkim_verified',
  spfVerified: 'spf_verified',
  dmarcVerified: 'dmarc_verified',
  returnPathVerified: 'return_path_verified',
  trackVerified: 'track_verified',
  verified: 'verified',
} as const;

const textColumns = {
  dkimFailureReason: 'dkim_failure_reason',
  spfFailureReason: 'spf_failure_reason',
  dmarcFailureReason: 'dmarc_failure_reason',
  trackFailureReason: 'track_failure_reason',
  returnPathFailureReason: 'return_path_failure_reason',
  dnsProvider: 'dns_provider',
  domainRegisteredDate: 'domain_registered_date',
} as const;

function patchValues(patch: DomainVerificationPatch): Partial<Record<keyof DomainsTable, unknown>> {
  const values: Partial<Record<keyof DomainsTable, unknown>> = { updated: patch.updated };
  for (const [field, column] of Object.entries(flagColumns) as [keyof typeof flagColumns, keyof DomainsTable][]) {
    const value = patch[field];
    if (value !== undefined) values[column] = fromBool(value);
  }
  for (const [field, column] of Object.entries(textColumns) as [keyof typeof textColumns, keyof DomainsTable][]) {
    const value = patch[field];
    if (value !== undefined) values[column] = value;
  }
  if (patch.lastCheckedAt !== undefined) values.last_checked_at = patch.lastCheckedAt;
  return values;
}

/** {@link DomainStore} on Kysely. */
export function kyselyDomainStore(ctx: KyselyStoreContext): DomainStore {
  const { db } = ctx;
  return {
    async create(input: NewDomain) {
      // ON CONFLICT DO NOTHING rather than catching the violation: in PostgreSQL a failed statement
      // would abort the caller's enclosing transaction.
      const row = await db
        .insertInto('domains')
        .values({
          sub_account_id: input.subAccountId,
          name: input.name,
          dkim_selector: input.dkimSelector,
          dkim_public_key: input.dkimPublicKey,
          dkim_private_key_sealed: input.dkimPrivateKeySealed,
          return_path_host: input.returnPathHost,
          return_path_target: input.returnPathTarget,
          track_host: input.trackHost,
          track_target: input.trackTarget,
          dkim_verified: 0,
          spf_verified: 0,
          dmarc_verified: 0,
          return_path_verified: 0,
          track_verified: 0,
          verified: 0,
          dkim_failure_reason: '',
          spf_failure_reason: '',
          dmarc_failure_reason: '',
          track_failure_reason: '',
          return_path_failure_reason: '',
          dns_provider: '',
          domain_registered_date: '',
          last_checked_at: 0,
          created: input.created,
          updated: input.created,
          ...dkimKeyValues({ pending: null, previous: null, rotatedAt: 0n, updated: input.created }),
        } as never)
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? success(toDomain(row)) : failure('duplicate-name');
    },

    async get(subAccountId, id) {
      const row = await db
        .selectFrom('domains')
        .selectAll()
        .where('sub_account_id', '=', subAccountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toDomain(row) : null;
    },

    async list(subAccountId, query) {
      let select = db.selectFrom('domains').selectAll().where('sub_account_id', '=', subAccountId);
      // Names are stored lower-cased, so the lower-cased LIKE pattern is a case-insensitive match.
      if (query.search !== undefined) select = select.where(containsText('name', query.search));
      const rows = await select.orderBy('id').limit(query.limit).offset(query.offset).execute();
      return rows.map(toDomain);
    },

    async findByName(subAccountId, name) {
      const row = await db
        .selectFrom('domains')
        .selectAll()
        .where('sub_account_id', '=', subAccountId)
        .where('name', '=', name)
        .executeTakeFirst();
      return row ? toDomain(row) : null;
    },

    async updateVerification(subAccountId, id, patch) {
      const row = await db
        .updateTable('domains')
        .set(patchValues(patch) as never)
        .where('sub_account_id', '=', subAccountId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toDomain(row) : null;
    },

    async updateDkimKeys(subAccountId, id, ifPendingSelector, patch) {
      const row = await db
        .updateTable('domains')
        .set(dkimKeyValues(patch) as never)
        .where('sub_account_id', '=', subAccountId)
        .where('id', '=', id)
        .where('dkim_pending_selector', '=', ifPendingSelector)
        .returningAll()
        .executeTakeFirst();
      return row ? toDomain(row) : null;
    },

    async delete(subAccountId, id) {
      const result = await db
        .deleteFrom('domains')
        .where('sub_account_id', '=', subAccountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
