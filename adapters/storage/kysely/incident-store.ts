import type { Kysely, Selectable } from 'kysely';
import type {
  AlertEntityType,
  AlertParameter,
  AlertWindowHours,
  IncidentAction,
  IncidentRecord,
  IncidentResolver,
  IncidentState,
  IncidentStore,
} from '../../../src/store/index.js';
import { failure, success } from '../../../src/store/outcome.js';
import { atomically, type KyselyStoreContext } from './context.js';
import { containsText } from './dialect.js';
import { toBigint, toNumber, toNumberOrNull } from './rows.js';
import type { Database } from './schema.js';
import type { IncidentActionsTable, IncidentsTable } from './tables/alerts.js';

/** Row and its timeline -> {@link IncidentRecord}. */
function toIncident(row: Selectable<IncidentsTable>, actions: Selectable<IncidentActionsTable>[]): IncidentRecord {
  return {
    id: toNumber(row.id),
    accountId: toNumber(row.account_id),
    topic: row.topic,
    alertId: toNumberOrNull(row.alert_id),
    entityType: row.entity_type as AlertEntityType,
    entityId: toNumber(row.entity_id),
    parameter: toNumber(row.parameter) as AlertParameter,
    provider: toNumberOrNull(row.provider),
    threshold: Number(row.threshold),
    windowHours: toNumber(row.window_hours) as AlertWindowHours,
    measuredValue: Number(row.measured_value),
    sampleSize: toNumber(row.sample_size),
    summary: row.summary,
    state: row.state as IncidentState,
    started: toBigint(row.started),
    resolvedAt: row.resolved_at === null ? null : toBigint(row.resolved_at),
    resolvedBy: row.resolved_by as IncidentResolver | null,
    updated: toBigint(row.updated),
    clearSince: row.clear_since === null ? null : toBigint(row.clear_since),
    timeline: actions.map((a) => ({
      at: toBigint(a.at),
      action: a.action,
      actor: a.actor as IncidentAction['actor'],
      detail: a.detail,
    })),
  };
}

/** The incidents of `rows` with their timelines, read in one query. */
async function withTimelines(db: Kysely<Database>, rows: Selectable<IncidentsTable>[]): Promise<IncidentRecord[]> {
  if (rows.length === 0) return [];
  const actions = await db
    .selectFrom('incident_actions')
    .selectAll()
    .where(
      'incident_id',
      'in',
      rows.map((r) => toNumber(r.id)),
    )
    .orderBy('id')
    .execute();
  return rows.map((row) =>
    toIncident(
      row,
      actions.filter((a) => toNumber(a.incident_id) === toNumber(row.id)),
    ),
  );
}

async function readOne(db: Kysely<Database>, accountId: number, id: number): Promise<IncidentRecord | null> {
  const row = await db
    .selectFrom('incidents')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? (await withTimelines(db, [row]))[0]! : null;
}

async function appendAction(db: Kysely<Database>, incidentId: number, action: IncidentAction): Promise<void> {
  await db
    .insertInto('incident_actions')
    .values({
      incident_id: incidentId,
      at: action.at,
      action: action.action,
      actor: action.actor,
      detail: action.detail.slice(0, 500),
    })
    .execute();
}

/** {@link IncidentStore} on Kysely. */
export function kyselyIncidentStore(ctx: KyselyStoreContext): IncidentStore {
  const { db } = ctx;
  const findOpen = async (trx: Kysely<Database>, accountId: number, topic: string) => {
    const row = await trx
      .selectFrom('incidents')
      .select('id')
      .where('account_id', '=', accountId)
      .where('open_topic', '=', topic)
      .executeTakeFirst();
    return row ? readOne(trx, accountId, toNumber(row.id)) : null;
  };
  return {
    open(input) {
      return atomically(ctx, async (trx) => {
        // ON CONFLICT DO NOTHING: a concurrent open of the same topic waits for the other's commit and
        // then finds its incident below, and no failed statement aborts a PostgreSQL transaction.
        const row = await trx
          .insertInto('incidents')
          .values({
            account_id: input.accountId,
            topic: input.topic,
            open_topic: input.topic,
            alert_id: input.alertId,
            entity_type: input.entityType,
            entity_id: input.entityId,
            parameter: input.parameter,
            provider: input.provider,
            threshold: input.threshold,
            window_hours: input.windowHours,
            measured_value: input.measuredValue,
            sample_size: input.sampleSize,
            summary: input.summary,
            state: 'open',
            started: input.started,
            updated: input.started,
          })
          .onConflict((oc) => oc.doNothing())
          .returning('id')
          .executeTakeFirst();
        if (!row) {
          const existing = await findOpen(trx, input.accountId, input.topic);
          if (!existing) throw new Error(`incident topic ${input.topic} conflicted but no open incident has it`);
          return { incident: existing, opened: false };
        }
        const id = toNumber(row.id);
        await appendAction(trx, id, { at: input.started, action: 'opened', actor: 'mailplane', detail: input.summary });
        return { incident: (await readOne(trx, input.accountId, id))!, opened: true };
      });
    },

    get: (accountId, id) => readOne(db, accountId, id),

    findOpen: (accountId, topic) => findOpen(db, accountId, topic),

    async list(accountId, query) {
      let select = db.selectFrom('incidents').selectAll().where('account_id', '=', accountId);
      if (query.state !== undefined) select = select.where('state', '=', query.state);
      if (query.search !== undefined) select = select.where(containsText('summary', query.search, { lower: true }));
      const rows = await select.orderBy('id', 'desc').limit(query.limit).offset(query.offset).execute();
      return withTimelines(db, rows);
    },

    addAction(accountId, id, action) {
      return atomically(ctx, async (trx) => {
        const updated = await trx
          .updateTable('incidents')
          .set({ updated: action.at })
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .returning('id')
          .executeTakeFirst();
        if (!updated) return null;
        await appendAction(trx, id, action);
        return readOne(trx, accountId, id);
      });
    },

    resolve(accountId, id, resolution) {
      return atomically(ctx, async (trx) => {
        // One conditional update decides: of two resolves at once, only one finds it open.
        const updated = await trx
          .updateTable('incidents')
          .set({
            state: 'resolved',
            open_topic: null,
            resolved_at: resolution.at,
            resolved_by: resolution.by,
            updated: resolution.at,
            clear_since: null,
          })
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .where('state', '=', 'open')
          .returning('id')
          .executeTakeFirst();
        if (!updated) {
          return (await readOne(trx, accountId, id)) ? failure('already-resolved') : failure('not-found');
        }
        const actor = resolution.by === 'operator' ? 'operator' : 'mailplane';
        await appendAction(trx, id, { at: resolution.at, action: 'resolved', actor, detail: resolution.detail });
        return success((await readOne(trx, accountId, id))!);
      });
    },

    async setClearSince(accountId, id, since) {
      const updated = await db
        .updateTable('incidents')
        .set({ clear_since: since })
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .where('state', '=', 'open')
        .returning('id')
        .executeTakeFirst();
      return updated !== undefined;
    },

    async lastResolved(accountId, topic) {
      const row = await db
        .selectFrom('incidents')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('topic', '=', topic)
        .where('resolved_at', 'is not', null)
        .orderBy('resolved_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? (await withTimelines(db, [row]))[0]! : null;
    },

    async listOpen(afterId, limit) {
      const rows = await db
        .selectFrom('incidents')
        .selectAll()
        .where('state', '=', 'open')
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute();
      return withTimelines(db, rows);
    },
  };
}
