/**
 * Bulk fill of one account's activity tables for the activity benchmark (bench/activity.ts), in
 * plain SQL on PostgreSQL: `INSERT … SELECT FROM generate_series` in chunks, so 10,000,000
 * messages and 50,000,000 events load in minutes instead of the days the store's own inserts
 * would take. Rows carry the filter columns of migration 0015 exactly as the store writes them
 * (`to_key` = lower-cased recipient, `from_key` = lower-cased from address, `group_key` =
 * `groupKey(groups)`), and each event its message's keys, status and pool (migration 0024), and
 * every message has its send, as the activity queries join them.
 *
 * The indexes of the three tables (primary keys included) are dropped before the load and
 * rebuilt from their own definitions after it, then the tables are analysed: the same indexes
 * the migrations made, built the fast way.
 */
import type pg from 'pg';

/** How the rows of the filled account spread (each value is picked by a hash of the row number). */
export const SPREAD = {
  /** Messages per send (one send request per `PER_SEND` recipients). */
  perSend: 10,
  /** Messages per distinct recipient (recipients = messages / 10 at every size). */
  perRecipient: 10,
  senders: 50,
  /** Of 25 buckets per send, 10 carry no group, the rest one or two of 15 groups. */
  groups: 15,
  /** Pools 1..5; one send in six goes without a pool. */
  pools: 5,
  /** Sub-accounts of the account. */
  subAccounts: 20,
  /** Events per message. */
  eventsPerMessage: 5,
  /** The days the messages spread over, ending at the fill's `end`. */
  days: 30,
} as const;

const DAY_NS = 86_400_000_000_000n;
/** Rows per INSERT statement: each chunk commits on its own, so a long load shows progress. */
const MESSAGE_CHUNK = 500_000;

/** A deterministic UUID-shaped text id of `prefix` and a row number (uniformly spread, like v4 ids). */
const uuid = (prefix: string, n: string) => `md5('${prefix}' || ${n})::uuid::text`;
/** A well-mixed hash of a bigint row number, 0 … 2^31 - 1. */
const mix = (n: string, salt: number) => `(hashint8((${n}) * 31 + ${salt}) & 2147483647)`;

/** What {@link fillActivity} needs: the account, its sub-account ids and the size. */
export interface FillPlan {
  accountId: number;
  subAccountIds: readonly number[];
  messages: number;
  /** The newest `submitted_at` (ns); messages spread over `SPREAD.days` before it. */
  end: bigint;
  log?: (line: string) => void;
}

/** The recipient of message `n` (lower-case form is what a query filters by). */
export function recipientOf(r: number): string {
  return `${r % 5 === 0 ? 'User' : 'user'}${r}@mail${r % 8}.example`;
}

/** The from address of sender number `s`. */
export function senderOf(s: number): string {
  return `news${s}@brand${s % 10}.example`;
}

/** Fills the plan's account with `messages` messages, their sends and five events each. */
export async function fillActivity(client: pg.Client, plan: FillPlan): Promise<void> {
  const log = plan.log ?? (() => {});
  const span = BigInt(SPREAD.days) * DAY_NS;
  const start = plan.end - span;
  const step = span / BigInt(plan.messages);
  const subs = `(array[${plan.subAccountIds.join(',')}])[${mix('b', 3)} % ${plan.subAccountIds.length} + 1]`;
  const recipients = Math.max(1, Math.floor(plan.messages / SPREAD.perRecipient));

  const { rows: indexes } = await client.query<{ name: string; def: string }>(
    `select indexname as name, indexdef as def from pg_indexes
      where schemaname = current_schema() and tablename in ('messages', 'events', 'send_batches') and indexname not like '%_pkey'`,
  );
  for (const index of indexes) await client.query(`drop index ${index.name}`);
  for (const table of ['messages', 'events', 'send_batches'])
    await client.query(`alter table ${table} drop constraint ${table}_pkey`);

  // Sends: one per `perSend` messages; sender, groups, pool and sub-account are the send's.
  const sends = Math.ceil(plan.messages / SPREAD.perSend);
  const sendColumns = `
    select b, ${uuid('b', 'b')} as id, ${subs} as sub_account_id,
      ${mix('b', 1)} % ${SPREAD.senders} as s, ${mix('b', 2)} % 25 as g, ${mix('b', 4)} % ${SPREAD.pools + 1} as p,
      ${start}::bigint + b * ${SPREAD.perSend} * ${step}::bigint as created
    from generate_series($1::bigint, $2::bigint) as b`;
  const groupsJson = `case when g < 10 then '' when g < 20 then '"group-' || (g % ${SPREAD.groups}) || '"'
      else '"group-' || (g % ${SPREAD.groups}) || '","group-' || ((g + 7) % ${SPREAD.groups}) || '"' end`;
  for (let from = 0; from < sends; from += MESSAGE_CHUNK / SPREAD.perSend) {
    const to = Math.min(sends, from + MESSAGE_CHUNK / SPREAD.perSend) - 1;
    await client.query(
      `insert into send_batches (id, account_id, sub_account_id, domain_id, content, created)
       select id, ${plan.accountId}, sub_account_id, null,
         '{"from":{"email":"news' || s || '@brand' || (s % 10) || '.example","name":"Brand ' || s || '"},"subject":"Offer ' || b ||
         '","htmlBody":"<p>Hello {{name}}, this week: ' || md5(b::text) || '</p>","headers":{},"groups":[' || ${groupsJson} ||
         '],' || case when p = 0 then '' else '"ippool":"pool-' || p || '",' end ||
         '"trackOpens":true,"trackClicks":true,"attachments":[]}', created
       from (${sendColumns}) as send`,
      [from, to],
    );
  }
  log(`  ${sends.toLocaleString()} sends`);

  // One row per message number n: its send b, time, recipient r and the send's sender s, groups g,
  // pool p and sub-account, computed the same way for the message and for its events.
  const status = `case when h < 88 then 'delivered' when h < 92 then 'hard_bounced' when h < 95 then 'deferred'
      when h < 98 then 'dropped' when h < 99 then 'queued' else 'smtp_dropped' end`;
  const messageRows = `
    select * from (select n, n / ${SPREAD.perSend} as b, ${start}::bigint + n * ${step}::bigint as at,
        ${mix('n', 5)} % 100 as h, ${mix('n', 6)} % ${recipients} as r
      from generate_series($1::bigint, $2::bigint) as n) as x
    cross join lateral (select ${mix('b', 1)} % ${SPREAD.senders} as s, ${mix('b', 2)} % 25 as g,
        ${mix('b', 4)} % ${SPREAD.pools + 1} as p, ${subs} as sub_account_id, ${status} as st) as y`;
  const groupKey = `case when g < 10 then '' when g < 20 then '|group-' || (g % ${SPREAD.groups}) || '|'
      else '|group-' || (g % ${SPREAD.groups}) || '|group-' || ((g + 7) % ${SPREAD.groups}) || '|' end`;
  for (let from = 0; from < plan.messages; from += MESSAGE_CHUNK) {
    const to = Math.min(plan.messages, from + MESSAGE_CHUNK) - 1;
    await client.query(
      `insert into messages (id, batch_id, account_id, sub_account_id, to_email, to_name, cc, bcc, custom_fields, status, attempts,
         submitted_at, updated, ip_id, ip_pool_id, tpsp_id, smtp_code, smtp_description, copy_of, separate_copies, to_key, from_key, group_key)
       select ${uuid('m', 'n')}, ${uuid('b', 'b')}, ${plan.accountId}, sub_account_id, email, '', '[]', '[]', '{"name":"Reader"}', st, 1,
         at, at + 4000000000, null, nullif(p, 0), null, case when st = 'delivered' then 250 when st = 'hard_bounced' then 550 else null end,
         '', null, 1, lower(email), 'news' || s || '@brand' || (s % 10) || '.example', ${groupKey}
       from (${messageRows}) as m
       cross join lateral (select case when r % 5 = 0 then 'User' else 'user' end || r || '@mail' || (r % 8) || '.example' as email) as e`,
      [from, to],
    );
    log(`  messages ${(to + 1).toLocaleString()} / ${plan.messages.toLocaleString()}`);
  }

  // Events: processed, the outcome, then opens, clicks, unsubscribes and complaints over the next hours.
  const type = `case j when 0 then 0
      when 1 then case st when 'delivered' then 2 when 'hard_bounced' then 4 when 'deferred' then 3 when 'queued' then 3 else 1 end
      when 2 then 5 when 3 then case when e % 10 < 6 then 5 else 6 end
      else case when e % 1000 < 4 then 7 when e % 1000 < 6 then 8 else 6 end end`;
  for (let from = 0; from < plan.messages; from += MESSAGE_CHUNK) {
    const to = Math.min(plan.messages, from + MESSAGE_CHUNK) - 1;
    await client.query(
      `insert into events (id, message_id, account_id, sub_account_id, type, created, metadata, to_key, from_key, group_key, status, ip_pool_id)
       select ${uuid('e', 'n * 5 + j')}, ${uuid('m', 'n')}, ${plan.accountId}, sub_account_id, ${type},
         at + j * j * 3600000000000::bigint + (e % 3600)::bigint * 1000000000, '{}',
         lower(email), 'news' || s || '@brand' || (s % 10) || '.example', ${groupKey}, st, nullif(p, 0)
       from (${messageRows}) as m
       cross join generate_series(0, ${SPREAD.eventsPerMessage - 1}) as j
       cross join lateral (select ${mix('n * 5 + j', 7)} as e) as h
       cross join lateral (select case when r % 5 = 0 then 'User' else 'user' end || r || '@mail' || (r % 8) || '.example' as email) as rc`,
      [from, to],
    );
    log(
      `  events ${((to + 1) * SPREAD.eventsPerMessage).toLocaleString()} / ${(plan.messages * SPREAD.eventsPerMessage).toLocaleString()}`,
    );
  }

  await client.query(`set maintenance_work_mem = '1GB'`);
  for (const table of ['messages', 'events', 'send_batches']) {
    await client.query(`alter table ${table} add primary key (id)`);
    log(`  ${table} primary key`);
  }
  for (const index of indexes) {
    await client.query(index.def);
    log(`  ${index.name}`);
  }
  await client.query('analyze messages, events, send_batches');
}
