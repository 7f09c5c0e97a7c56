import type { Kysely, Selectable } from 'kysely';
import { normalizeName } from '../../../src/dns/names.js';
import type {
  InboundAction,
  InboundDomainRecord,
  InboundPatternKind,
  InboundRouteRecord,
  InboundStore,
} from '../../../src/store/index.js';
import { failure, success } from '../../../src/store/outcome.js';
import { atomically, type KyselyStoreContext } from './context.js';
import { containsText, isUniqueViolation } from './dialect.js';
import { kyselyInboundListQueries } from './inbound-list.js';
import { kyselyInboundMessages } from './inbound-messages.js';
import { fromBool, toBigint, toBool, toNumber } from './rows.js';
import type { Database } from './schema.js';
import type { InboundDomainsTable, InboundRoutesTable } from './tables/inbound.js';

function toDomain(row: Selectable<InboundDomainsTable>): InboundDomainRecord {
  return {
    domainId: toNumber(row.domain_id),
    accountId: toNumber(row.account_id),
    subAccountId: toNumber(row.sub_account_id),
    name: row.name,
    enabledAt: toBigint(row.enabled_at),
    mxVerified: toBool(row.mx_verified),
    mxFailureReason: row.mx_failure_reason,
    mxCheckedAt: toBigint(row.mx_checked_at),
  };
}

function toRoute(row: Selectable<InboundRoutesTable>): InboundRouteRecord {
  return {
    id: toNumber(row.id),
    accountId: toNumber(row.account_id),
    subAccountId: toNumber(row.sub_account_id),
    pattern: row.pattern,
    kind: row.kind as InboundPatternKind,
    domain: row.domain,
    localPart: row.local_part,
    action: row.action as InboundAction,
    url: row.url,
    secretSealed: row.secret_sealed,
    forwardTo: row.forward_to,
    created: toBigint(row.created),
    updated: toBigint(row.updated),
  };
}

/** Whether `subAccountId` receives on the domain named `name`. */
async function receivesOn(db: Kysely<Database>, subAccountId: number, name: string): Promise<boolean> {
  const row = await db
    .selectFrom('inbound_domains')
    .select('domain_id')
    .where('sub_account_id', '=', subAccountId)
    .where('name', '=', name)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether another route of `subAccountId` (not `exceptId`) has `pattern`. */
async function patternTaken(db: Kysely<Database>, subAccountId: number, pattern: string, exceptId: number) {
  const row = await db
    .selectFrom('inbound_routes')
    .select('id')
    .where('sub_account_id', '=', subAccountId)
    .where('pattern', '=', pattern)
    .where('id', '!=', exceptId)
    .executeTakeFirst();
  return row !== undefined;
}

/** {@link InboundStore} on Kysely. */
export function kyselyInboundStore(ctx: KyselyStoreContext): InboundStore {
  const { db } = ctx;
  const ownedDomain = (subAccountId: number, domainId: number) =>
    db
      .selectFrom('inbound_domains')
      .selectAll()
      .where('sub_account_id', '=', subAccountId)
      .where('domain_id', '=', domainId)
      .executeTakeFirst();
  const routesOf = (subAccountId: number, search: string | undefined) => {
    const select = db.selectFrom('inbound_routes').where('sub_account_id', '=', subAccountId);
    // Patterns are stored lower-cased: the column is its own search key.
    return search === undefined ? select : select.where(containsText('pattern', search));
  };
  return {
    ...kyselyInboundListQueries(ctx),
    enableDomain(subAccountId, domainId, at) {
      return atomically(ctx, async (trx) => {
        const domain = await trx
          .selectFrom('domains')
          .innerJoin('sub_accounts', 'sub_accounts.id', 'domains.sub_account_id')
          .select(['domains.name', 'sub_accounts.account_id'])
          .where('domains.id', '=', domainId)
          .where('domains.sub_account_id', '=', subAccountId)
          .executeTakeFirst();
        if (!domain) return failure('not-found');
        // A concurrent enable of the same domain inserts nothing: its row (and `enabledAt`) stand.
        await trx
          .insertInto('inbound_domains')
          .values({
            domain_id: domainId,
            account_id: toNumber(domain.account_id),
            sub_account_id: subAccountId,
            name: domain.name,
            enabled_at: at,
            mx_verified: fromBool(false),
            mx_failure_reason: '',
            mx_checked_at: 0n,
          })
          .onConflict((oc) => oc.column('domain_id').doNothing())
          .execute();
        const row = await trx
          .selectFrom('inbound_domains')
          .selectAll()
          .where('domain_id', '=', domainId)
          .executeTakeFirstOrThrow();
        return success(toDomain(row));
      });
    },

    async disableDomain(subAccountId, domainId) {
      const result = await db
        .deleteFrom('inbound_domains')
        .where('sub_account_id', '=', subAccountId)
        .where('domain_id', '=', domainId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async getDomain(subAccountId, domainId) {
      const row = await ownedDomain(subAccountId, domainId);
      return row ? toDomain(row) : null;
    },

    async listDomains(subAccountId) {
      const rows = await db
        .selectFrom('inbound_domains')
        .selectAll()
        .where('sub_account_id', '=', subAccountId)
        .orderBy('domain_id')
        .execute();
      return rows.map(toDomain);
    },

    async receivingDomain(name) {
      const row = await db
        .selectFrom('inbound_domains')
        .selectAll()
        .where('name', '=', normalizeName(name))
        .orderBy('domain_id')
        .limit(1)
        .executeTakeFirst();
      return row ? toDomain(row) : null;
    },

    async setMxCheck(domainId, check) {
      await db
        .updateTable('inbound_domains')
        .set({
          mx_verified: fromBool(check.verified),
          mx_failure_reason: check.verified ? '' : check.reason,
          mx_checked_at: check.at,
        })
        .where('domain_id', '=', domainId)
        .execute();
    },

    async createRoute(input) {
      try {
        return await atomically(ctx, async (trx) => {
          if (await patternTaken(trx, input.subAccountId, input.pattern, 0)) return failure('duplicate-pattern');
          if (!(await receivesOn(trx, input.subAccountId, input.domain))) return failure('domain-not-receiving');
          const row = await trx
            .insertInto('inbound_routes')
            .values({
              account_id: input.accountId,
              sub_account_id: input.subAccountId,
              pattern: input.pattern,
              kind: input.kind,
              domain: input.domain,
              local_part: input.localPart,
              action: input.action,
              url: input.url,
              secret_sealed: input.secretSealed,
              forward_to: input.forwardTo,
              created: input.created,
              updated: input.created,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          return success(toRoute(row));
        });
      } catch (error) {
        // A concurrent create took the pattern between the check and the insert.
        if (isUniqueViolation(error)) return failure('duplicate-pattern');
        throw error;
      }
    },

    async getRoute(subAccountId, id) {
      const row = await db
        .selectFrom('inbound_routes')
        .selectAll()
        .where('sub_account_id', '=', subAccountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toRoute(row) : null;
    },

    async listRoutes(subAccountId, query) {
      const rows = await routesOf(subAccountId, query.search)
        .selectAll()
        .orderBy('id')
        .limit(query.limit)
        .offset(query.offset)
        .execute();
      return rows.map(toRoute);
    },

    async countRoutes(subAccountId, search) {
      const row = await routesOf(subAccountId, search)
        .select((eb) => eb.fn.countAll().as('count'))
        .executeTakeFirstOrThrow();
      return toNumber(row.count as number | bigint | string);
    },

    async updateRoute(subAccountId, id, patch) {
      try {
        return await atomically(ctx, async (trx) => {
          const current = await trx
            .selectFrom('inbound_routes')
            .selectAll()
            .where('sub_account_id', '=', subAccountId)
            .where('id', '=', id)
            .executeTakeFirst();
          if (!current) return failure('not-found');
          if (patch.pattern !== undefined && (await patternTaken(trx, subAccountId, patch.pattern, id)))
            return failure('duplicate-pattern');
          if (!(await receivesOn(trx, subAccountId, patch.domain ?? current.domain)))
            return failure('domain-not-receiving');
          const row = await trx
            .updateTable('inbound_routes')
            .set({
              updated: patch.updated,
              ...(patch.pattern !== undefined && { pattern: patch.pattern }),
              ...(patch.kind !== undefined && { kind: patch.kind }),
              ...(patch.domain !== undefined && { domain: patch.domain }),
              ...(patch.localPart !== undefined && { local_part: patch.localPart }),
              ...(patch.action !== undefined && { action: patch.action }),
              ...(patch.url !== undefined && { url: patch.url }),
              ...(patch.secretSealed !== undefined && { secret_sealed: patch.secretSealed }),
              ...(patch.forwardTo !== undefined && { forward_to: patch.forwardTo }),
            })
            .where('sub_account_id', '=', subAccountId)
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirst();
          return row ? success(toRoute(row)) : failure('not-found');
        });
      } catch (error) {
        if (isUniqueViolation(error)) return failure('duplicate-pattern');
        throw error;
      }
    },

    async deleteRoute(subAccountId, id) {
      const row = await db
        .deleteFrom('inbound_routes')
        .where('sub_account_id', '=', subAccountId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toRoute(row) : null;
    },

    async routesForDomain(domain) {
      // Only the routes of the sub-account receiving on it now: a disabled domain's routes stay asleep.
      const rows = await db
        .selectFrom('inbound_routes')
        .innerJoin('inbound_domains', (join) =>
          join
            .onRef('inbound_domains.sub_account_id', '=', 'inbound_routes.sub_account_id')
            .onRef('inbound_domains.name', '=', 'inbound_routes.domain'),
        )
        .selectAll('inbound_routes')
        .where('inbound_routes.domain', '=', domain)
        .orderBy('inbound_routes.id')
        .execute();
      return rows.map(toRoute);
    },

    ...kyselyInboundMessages(ctx),
  };
}
