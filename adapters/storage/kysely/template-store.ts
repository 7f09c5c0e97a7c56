import { sql, type Kysely, type Selectable } from 'kysely';
import { failure, success } from '../../../src/store/outcome.js';
import type {
  TemplateContent,
  TemplateRecord,
  TemplateStore,
  TemplateSummary,
  TemplateVersionRecord,
} from '../../../src/store/index.js';
import { atomically, type KyselyStoreContext } from './context.js';
import { containsText, isUniqueViolation } from './dialect.js';
import { toBigint, toNumber } from './rows.js';
import type { Database } from './schema.js';
import type { TemplatesTable, TemplateVersionsTable } from './tables/templates.js';

const nameKey = (name: string) => name.toLowerCase();

function toVersion(row: Selectable<TemplateVersionsTable>): TemplateVersionRecord {
  return {
    templateId: toNumber(row.template_id),
    version: toNumber(row.version),
    subject: row.subject,
    ...(row.html_body !== null && { htmlBody: row.html_body }),
    ...(row.text_body !== null && { textBody: row.text_body }),
    ...(row.amp_body !== null && { ampBody: row.amp_body }),
    created: toBigint(row.created),
  };
}

function toSummary(row: Selectable<TemplatesTable>, subject: string): TemplateSummary {
  return {
    id: toNumber(row.id),
    subAccountId: toNumber(row.sub_account_id),
    name: row.name,
    activeVersion: toNumber(row.active_version),
    latestVersion: toNumber(row.latest_version),
    subject,
    created: toBigint(row.created),
    updated: toBigint(row.updated),
  };
}

const versionValues = (templateId: number, version: number, content: TemplateContent, created: bigint) => ({
  template_id: templateId,
  version,
  subject: content.subject,
  html_body: content.htmlBody ?? null,
  text_body: content.textBody ?? null,
  amp_body: content.ampBody ?? null,
  created,
});

/** The template row `where` picks, with its active version, in `db` (a transaction or not). */
async function readTemplate(
  db: Kysely<Database>,
  subAccountId: number,
  where: { id: number } | { nameKey: string },
): Promise<TemplateRecord | null> {
  let select = db.selectFrom('templates').selectAll().where('sub_account_id', '=', subAccountId);
  select = 'id' in where ? select.where('id', '=', where.id) : select.where('name_key', '=', where.nameKey);
  const row = await select.executeTakeFirst();
  if (!row) return null;
  const version = await db
    .selectFrom('template_versions')
    .selectAll()
    .where('template_id', '=', row.id as number)
    .where('version', '=', row.active_version as number)
    .executeTakeFirst();
  // The active version is never deleted (an update prunes below the new active one); a missing one is a fault.
  if (!version) throw new Error(`template ${String(row.id)}: active version ${String(row.active_version)} is missing`);
  const active = toVersion(version);
  return { ...toSummary(row, active.subject), active };
}

/** {@link TemplateStore} on Kysely. */
export function kyselyTemplateStore(ctx: KyselyStoreContext): TemplateStore {
  const { db } = ctx;
  return {
    create(input) {
      return atomically(ctx, async (trx) => {
        // ON CONFLICT DO NOTHING rather than catching the violation: in PostgreSQL a failed statement
        // would abort the caller's enclosing transaction.
        const row = await trx
          .insertInto('templates')
          .values({
            sub_account_id: input.subAccountId,
            name: input.name,
            name_key: nameKey(input.name),
            active_version: 1,
            latest_version: 1,
            created: input.created,
            updated: input.created,
          })
          .onConflict((oc) => oc.doNothing())
          .returning('id')
          .executeTakeFirst();
        if (!row) return failure('duplicate-name');
        const id = toNumber(row.id);
        await trx
          .insertInto('template_versions')
          .values(versionValues(id, 1, input.content, input.created))
          .execute();
        return success((await readTemplate(trx, input.subAccountId, { id }))!);
      });
    },

    get: (subAccountId, id) => readTemplate(db, subAccountId, { id }),

    findByName: (subAccountId, name) => readTemplate(db, subAccountId, { nameKey: nameKey(name) }),

    async list(subAccountId, query) {
      let select = db
        .selectFrom('templates')
        .innerJoin('template_versions', (join) =>
          join
            .onRef('template_versions.template_id', '=', 'templates.id')
            .onRef('template_versions.version', '=', 'templates.active_version'),
        )
        .selectAll('templates')
        .select('template_versions.subject')
        .where('templates.sub_account_id', '=', subAccountId);
      if (query.search !== undefined) select = select.where(containsText('templates.name_key', query.search));
      const rows = await select.orderBy('templates.id').limit(query.limit).offset(query.offset).execute();
      return rows.map((row) => toSummary(row, row.subject));
    },

    async update(subAccountId, id, update) {
      try {
        return await atomically(ctx, async (trx) => {
          if (update.name !== undefined) {
            const taken = await trx
              .selectFrom('templates')
              .select('id')
              .where('sub_account_id', '=', subAccountId)
              .where('name_key', '=', nameKey(update.name))
              .where('id', '!=', id)
              .executeTakeFirst();
            if (taken) return failure('duplicate-name');
          }
          const { content } = update;
          const row = await trx
            .updateTable('templates')
            .set({
              updated: update.updated,
              ...(update.name !== undefined && { name: update.name, name_key: nameKey(update.name) }),
              // Both read the row's old value: the new version is the latest plus one, and active.
              ...(content && {
                latest_version: sql<number>`latest_version + 1`,
                active_version: sql<number>`latest_version + 1`,
              }),
            })
            .where('sub_account_id', '=', subAccountId)
            .where('id', '=', id)
            .returning(['latest_version'])
            .executeTakeFirst();
          if (!row) return failure('not-found');
          if (content) {
            const latest = toNumber(row.latest_version);
            await trx
              .insertInto('template_versions')
              .values(versionValues(id, latest, content, update.updated))
              .execute();
            await trx
              .deleteFrom('template_versions')
              .where('template_id', '=', id)
              .where('version', '<=', latest - update.keepVersions)
              .execute();
          }
          return success((await readTemplate(trx, subAccountId, { id }))!);
        });
      } catch (error) {
        // A concurrent rename took the name between the check and the update (the transaction is gone).
        if (isUniqueViolation(error)) return failure('duplicate-name');
        throw error;
      }
    },

    async listVersions(subAccountId, id) {
      const owner = await db
        .selectFrom('templates')
        .select('id')
        .where('sub_account_id', '=', subAccountId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (!owner) return null;
      const rows = await db
        .selectFrom('template_versions')
        .select(['version', 'subject', 'created'])
        .where('template_id', '=', id)
        .orderBy('version')
        .execute();
      return rows.map((row) => ({
        version: toNumber(row.version),
        subject: row.subject,
        created: toBigint(row.created),
      }));
    },

    async getVersion(subAccountId, id, version) {
      const row = await db
        .selectFrom('template_versions')
        .innerJoin('templates', 'templates.id', 'template_versions.template_id')
        .selectAll('template_versions')
        .where('templates.sub_account_id', '=', subAccountId)
        .where('templates.id', '=', id)
        .where('template_versions.version', '=', version)
        .executeTakeFirst();
      return row ? toVersion(row) : null;
    },

    activate(subAccountId, id, version, updated) {
      return atomically(ctx, async (trx) => {
        const owner = await trx
          .selectFrom('templates')
          .select('id')
          .where('sub_account_id', '=', subAccountId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!owner) return failure('not-found');
        const kept = await trx
          .selectFrom('template_versions')
          .select('version')
          .where('template_id', '=', id)
          .where('version', '=', version)
          .executeTakeFirst();
        if (!kept) return failure('no-such-version');
        await trx.updateTable('templates').set({ active_version: version, updated }).where('id', '=', id).execute();
        return success((await readTemplate(trx, subAccountId, { id }))!);
      });
    },

    delete(subAccountId, id) {
      return atomically(ctx, async (trx) => {
        const owner = await trx
          .selectFrom('templates')
          .select('id')
          .where('sub_account_id', '=', subAccountId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!owner) return false;
        // Explicitly, as sub-accounts delete their credentials: a caller-supplied SQLite connection may
        // lack the foreign_keys pragma that makes the cascade work.
        await trx.deleteFrom('template_versions').where('template_id', '=', id).execute();
        await trx.deleteFrom('templates').where('id', '=', id).execute();
        return true;
      });
    },
  };
}
