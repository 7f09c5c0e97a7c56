import { NotFoundError } from '../../errors.js';
import { parseResourceId } from '../../model/ids.js';
import { z } from 'zod';
import {
  aggregateStats,
  dailyStats,
  dailyStatWireSchema,
  groupRangeQuerySchema,
  rangeQuerySchema,
  statCountersWireSchema,
  statGroups,
} from '../../stats/queries.js';
import { route } from '../route.js';
import type { MailplaneStore } from '../../store/index.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface StatsRoutesDeps {
  readonly store: MailplaneStore;
}

/** The sub-account `rawId` of the calling account, or 406. */
async function ownedSubAccountId(ctx: StatsRoutesDeps, accountId: number, rawId: string | undefined): Promise<number> {
  const id = parseResourceId(rawId);
  const subAccount = id === null ? null : await ctx.store.subAccounts.get(accountId, id);
  if (!subAccount) throw new NotFoundError('SUBACCOUNT_NOT_FOUND', `no sub-account with id ${rawId} in this account`);
  return subAccount.id;
}

/** The account's aggregate: the counters, with `spam` also spelled `spams` as the reference's `AggregateStats` has it. */
const accountAggregateWireSchema = statCountersWireSchema.extend({ spams: z.int().min(0) });

/** Every statistics endpoint: sub-account level, account level per sub-account, account level. */
export const statsRoutes = [
  route({
    method: 'GET',
    path: '/subaccount/stat',
    auth: 'subaccount',
    response: z.array(dailyStatWireSchema),
    query: rangeQuerySchema,
    handle: async ({ ctx, principal: { subAccount }, query }) => ({
      body: await dailyStats(
        ctx.store.stats,
        { accountId: subAccount.accountId, subAccountId: subAccount.id },
        query.from,
        query.to,
      ),
    }),
  }),
  route({
    method: 'GET',
    path: '/subaccount/stat/aggregate',
    auth: 'subaccount',
    response: statCountersWireSchema,
    query: rangeQuerySchema,
    handle: async ({ ctx, principal: { subAccount }, query }) => ({
      body: await aggregateStats(
        ctx.store.stats,
        { accountId: subAccount.accountId, subAccountId: subAccount.id },
        query.from,
        query.to,
      ),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/subaccount/stat/:subaccount_id',
    auth: 'account',
    response: z.array(dailyStatWireSchema),
    query: rangeQuerySchema,
    handle: async ({ ctx, principal: { account }, params, query }) => {
      const subAccountId = await ownedSubAccountId(ctx, account.id, params.subaccount_id);
      return { body: await dailyStats(ctx.store.stats, { accountId: account.id, subAccountId }, query.from, query.to) };
    },
  }),
  route({
    method: 'GET',
    path: '/account/subaccount/stat/:subaccount_id/aggregate',
    auth: 'account',
    response: statCountersWireSchema,
    query: rangeQuerySchema,
    handle: async ({ ctx, principal: { account }, params, query }) => {
      const subAccountId = await ownedSubAccountId(ctx, account.id, params.subaccount_id);
      return {
        body: await aggregateStats(ctx.store.stats, { accountId: account.id, subAccountId }, query.from, query.to),
      };
    },
  }),
  route({
    method: 'GET',
    path: '/account/subaccount/stat/:subaccount_id/group',
    auth: 'account',
    response: statCountersWireSchema,
    query: groupRangeQuerySchema,
    handle: async ({ ctx, principal: { account }, params, query }) => {
      const subAccountId = await ownedSubAccountId(ctx, account.id, params.subaccount_id);
      const scope = { accountId: account.id, subAccountId, group: query.group };
      return { body: await aggregateStats(ctx.store.stats, scope, query.from, query.to) };
    },
  }),
  route({
    method: 'GET',
    path: '/account/stat',
    auth: 'account',
    response: z.array(dailyStatWireSchema),
    query: rangeQuerySchema,
    handle: async ({ ctx, principal: { account }, query }) => ({
      body: await dailyStats(ctx.store.stats, { accountId: account.id }, query.from, query.to),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/stat/aggregate',
    auth: 'account',
    response: accountAggregateWireSchema,
    query: rangeQuerySchema,
    handle: async ({ ctx, principal: { account }, query }) => {
      const totals = await aggregateStats(ctx.store.stats, { accountId: account.id }, query.from, query.to);
      // The reference's AggregateStats spells the last counter `spams`; the spec says `spam`. Both are sent.
      return { body: { ...totals, spams: totals.spam } };
    },
  }),
  route({
    method: 'GET',
    path: '/account/stat/group',
    auth: 'account',
    response: z.array(dailyStatWireSchema),
    query: groupRangeQuerySchema,
    handle: async ({ ctx, principal: { account }, query }) => ({
      body: await dailyStats(ctx.store.stats, { accountId: account.id, group: query.group }, query.from, query.to),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/stat/aggregate/group',
    auth: 'account',
    response: statCountersWireSchema,
    query: groupRangeQuerySchema,
    handle: async ({ ctx, principal: { account }, query }) => ({
      body: await aggregateStats(ctx.store.stats, { accountId: account.id, group: query.group }, query.from, query.to),
    }),
  }),
  // mailplane's additions: the group names with mail in the range (the per-group routes need one).
  route({
    method: 'GET',
    path: '/subaccount/stat/groups',
    auth: 'subaccount',
    response: z.array(z.string()),
    query: rangeQuerySchema,
    handle: async ({ ctx, principal: { subAccount }, query }) => ({
      body: await statGroups(
        ctx.store.stats,
        { accountId: subAccount.accountId, subAccountId: subAccount.id },
        query.from,
        query.to,
      ),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/stat/groups',
    auth: 'account',
    response: z.array(z.string()),
    query: rangeQuerySchema,
    handle: async ({ ctx, principal: { account }, query }) => ({
      body: await statGroups(ctx.store.stats, { accountId: account.id }, query.from, query.to),
    }),
  }),
];
