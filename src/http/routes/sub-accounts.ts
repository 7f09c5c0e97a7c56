import { z } from 'zod';
import { subAccountToWire, subAccountWireSchema } from '../../account/sub-account-wire.js';
import { deletedSchema } from '../../model/wire-schemas.js';
import { subAccountService } from '../../account/sub-accounts.js';
import { parseResourceId } from '../../model/ids.js';
import { listQuerySchema } from '../../model/paging.js';
import { freeTextSchema, nameSchema } from '../../model/text.js';
import { route } from '../route.js';
import { MAX_RETENTION_DAYS } from '../../retention/config.js';

const createBody = z.strictObject({
  name: nameSchema(100),
  companyName: freeTextSchema(200).optional(),
});

const updateBody = z
  .strictObject({
    name: nameSchema(100).optional(),
    blocked: z.boolean().optional(),
    block_reason: freeTextSchema(500).optional(),
    /** mailplane's addition: days its messages and events are kept; null = the instance's retention (docs/activity.md). */
    retentionDays: z.int().min(1).max(MAX_RETENTION_DAYS).nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'give at least one of name, blocked, block_reason, retentionDays');

/** The members of a sub-account's answer that hold its secrets: its API key and SMTP passwords. */
const SUBACCOUNT_SECRETS = ['apiKey', 'password'];

/** `/account/subaccount`: the sub-accounts of the calling account. */
export const subAccountRoutes = [
  route({
    method: 'POST',
    path: '/account/subaccount',
    auth: 'account',
    response: subAccountWireSchema,
    secrets: { names: SUBACCOUNT_SECRETS, origin: 'created' },
    successStatus: 201,
    body: createBody,
    handle: async ({ ctx, principal, body }) => {
      const view = await subAccountService.create(ctx, principal.account.id, {
        name: body.name,
        companyName: body.companyName ?? '',
      });
      return { body: subAccountToWire(view, ctx.secrets) };
    },
  }),
  route({
    method: 'GET',
    path: '/account/subaccount',
    auth: 'account',
    response: z.array(subAccountWireSchema),
    secrets: { names: SUBACCOUNT_SECRETS, origin: 'stored' },
    query: listQuerySchema,
    handle: async ({ ctx, principal, query }) => {
      const views = await subAccountService.list(ctx, principal.account.id, query);
      return { body: views.map((view) => subAccountToWire(view, ctx.secrets)) };
    },
  }),
  route({
    method: 'GET',
    path: '/account/subaccount/:subaccount_id',
    auth: 'account',
    response: subAccountWireSchema,
    secrets: { names: SUBACCOUNT_SECRETS, origin: 'stored' },
    handle: async ({ ctx, principal, params }) => {
      const view = await subAccountService.get(ctx, principal.account.id, parseResourceId(params.subaccount_id));
      return { body: subAccountToWire(view, ctx.secrets) };
    },
  }),
  route({
    method: 'PUT',
    path: '/account/subaccount/:subaccount_id',
    auth: 'account',
    response: subAccountWireSchema,
    secrets: { names: SUBACCOUNT_SECRETS, origin: 'stored' },
    body: updateBody,
    handle: async ({ ctx, principal, params, body }) => {
      const view = await subAccountService.update(ctx, principal.account.id, parseResourceId(params.subaccount_id), {
        name: body.name,
        blocked: body.blocked,
        blockReason: body.block_reason,
        retentionDays: body.retentionDays,
      });
      return { body: subAccountToWire(view, ctx.secrets) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/account/subaccount/:subaccount_id',
    auth: 'account',
    response: deletedSchema,
    handle: async ({ ctx, principal, params }) => {
      const deleted = await subAccountService.delete(ctx, principal.account.id, parseResourceId(params.subaccount_id));
      return { body: { id: deleted.id, message: `Sub-Account (${deleted.name}) has been deleted successfully.` } };
    },
  }),
];
