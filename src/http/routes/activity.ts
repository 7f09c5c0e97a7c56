import { exportEvents, exportMessages } from '../../activity/export.js';
import { activityQuerySchema, exportQuerySchema } from '../../activity/query.js';
import { eventPageWireSchema, listEvents, listMessages, messagePageWireSchema } from '../../activity/list.js';
import { messageItemViewSchema } from '../../activity/rendered-subject.js';
import { eventWireSchema } from '../../sending/message-wire.js';
import { route } from '../route.js';
import { StreamedBody } from '../streamed-body.js';
import type { ExportBody } from '../../activity/export.js';

/** An export as the body of a route's answer. */
const streamed = (body: ExportBody) => new StreamedBody(body.contentType, body.chunks, body.headers);

/**
 * The activity lists (docs/activity.md): messages and events, newest first, cursor paged, and
 * their streamed exports. They come before `/account/message/:message_id` in the table, so
 * `export` is not taken for a message id.
 */
export const activityRoutes = [
  route({
    method: 'GET',
    path: '/account/message/export',
    auth: 'account',
    response: messageItemViewSchema,
    export: true,
    query: exportQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: streamed(await exportMessages(ctx, { accountId: principal.account.id }, query)),
    }),
  }),
  route({
    method: 'GET',
    path: '/subaccount/message/export',
    auth: 'subaccount',
    response: messageItemViewSchema,
    export: true,
    query: exportQuerySchema,
    handle: async ({ ctx, principal: { subAccount }, query }) => ({
      body: streamed(
        await exportMessages(ctx, { accountId: subAccount.accountId, subAccountId: subAccount.id }, query),
      ),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/event/export',
    auth: 'account',
    response: eventWireSchema,
    export: true,
    query: exportQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: streamed(await exportEvents(ctx, { accountId: principal.account.id }, query)),
    }),
  }),
  route({
    method: 'GET',
    path: '/subaccount/event/export',
    auth: 'subaccount',
    response: eventWireSchema,
    export: true,
    query: exportQuerySchema,
    handle: async ({ ctx, principal: { subAccount }, query }) => ({
      body: streamed(await exportEvents(ctx, { accountId: subAccount.accountId, subAccountId: subAccount.id }, query)),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/message',
    auth: 'account',
    response: messagePageWireSchema,
    query: activityQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: await listMessages(ctx, { accountId: principal.account.id }, query),
    }),
  }),
  route({
    method: 'GET',
    path: '/subaccount/message',
    auth: 'subaccount',
    response: messagePageWireSchema,
    query: activityQuerySchema,
    handle: async ({ ctx, principal: { subAccount }, query }) => ({
      body: await listMessages(ctx, { accountId: subAccount.accountId, subAccountId: subAccount.id }, query),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/event',
    auth: 'account',
    response: eventPageWireSchema,
    query: activityQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: await listEvents(ctx, { accountId: principal.account.id }, query),
    }),
  }),
  route({
    method: 'GET',
    path: '/subaccount/event',
    auth: 'subaccount',
    response: eventPageWireSchema,
    query: activityQuerySchema,
    handle: async ({ ctx, principal: { subAccount }, query }) => ({
      body: await listEvents(ctx, { accountId: subAccount.accountId, subAccountId: subAccount.id }, query),
    }),
  }),
];
