import { Migrator } from 'kysely';
import type { SettingStore, StoreReadiness } from '../../../src/store/instance-store.js';
import type { KyselyStoreContext } from './context.js';
import { mailplaneMigrations } from './migrations/index.js';

/** {@link SettingStore} on the `settings` table: an insert that yields to an existing row, then a read. */
export function kyselySettingStore(ctx: KyselyStoreContext): SettingStore {
  return {
    async claim(name, value) {
      await ctx.db
        .insertInto('settings')
        .values({ name, value })
        .onConflict((c) => c.column('name').doNothing())
        .execute();
      const row = await ctx.db
        .selectFrom('settings')
        .select('value')
        .where('name', '=', name)
        .executeTakeFirstOrThrow();
      return row.value;
    },
  };
}

/**
 * Readiness of a Kysely store: the migration table is read (so the database answers), and every
 * migration this code knows has run. A database migrated by newer code is ready as far as this
 * node can tell: migrations only add.
 */
export async function kyselyReadiness(ctx: KyselyStoreContext): Promise<StoreReadiness> {
  const migrations = await new Migrator({ db: ctx.db, provider: mailplaneMigrations(ctx.dialect) }).getMigrations();
  const pending = migrations.filter((m) => m.executedAt === undefined).map((m) => m.name);
  if (pending.length > 0)
    return { ready: false, reason: `${pending.length} migration(s) not applied: ${pending.join(', ')}` };
  return { ready: true };
}
