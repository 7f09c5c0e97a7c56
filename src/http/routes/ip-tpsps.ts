import { z } from 'zod';
import { isHost } from '../../ip/hostnames.js';
import { tpspService } from '../../ip/tpsps.js';
import { tpspToWire, tpspWireSchema } from '../../ip/wire.js';
import { deletedSchema } from '../../model/wire-schemas.js';
import { parseResourceId } from '../../model/ids.js';
import { listQuerySchema } from '../../model/paging.js';
import { freeTextSchema, nameSchema } from '../../model/text.js';
import type { TpspKind } from '../../store/index.js';
import { route } from '../route.js';

const fields = {
  type: z
    .int()
    .min(0)
    .max(5)
    .transform((v) => v as TpspKind),
  host: z
    .string()
    .trim()
    .max(253)
    .transform((v) => v.toLowerCase())
    .refine(isHost, 'must be a host name or an IP address'),
  port: z.int().min(1).max(65535),
  security: z.enum(['tls', 'starttls', 'none']),
  username: freeTextSchema(320),
  password: freeTextSchema(1000),
};

const createBody = z.strictObject({
  name: nameSchema(100),
  type: fields.type,
  host: fields.host.optional(),
  port: fields.port.optional(),
  security: fields.security.optional(),
  username: fields.username.optional(),
  password: fields.password.optional(),
});

const updateBody = z
  .strictObject({
    name: nameSchema(100).optional(),
    type: fields.type.optional(),
    host: fields.host.optional(),
    port: fields.port.optional(),
    security: fields.security.optional(),
    username: fields.username.optional(),
    password: fields.password.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'give at least one field to change');

/** `/account/tpsp`: the account's third-party sending providers. */
export const tpspRoutes = [
  route({
    method: 'POST',
    path: '/account/tpsp',
    auth: 'account',
    response: tpspWireSchema,
    body: createBody,
    handle: async ({ ctx, principal, body }) => ({
      body: tpspToWire(await tpspService.create(ctx, principal.account.id, { ...body, kind: body.type })),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/tpsp',
    auth: 'account',
    response: z.array(tpspWireSchema),
    query: listQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: (await tpspService.list(ctx, principal.account.id, query)).map(tpspToWire),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/tpsp/:tpsp_id',
    auth: 'account',
    response: tpspWireSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: tpspToWire(await tpspService.get(ctx, principal.account.id, parseResourceId(params.tpsp_id))),
    }),
  }),
  route({
    method: 'PUT',
    path: '/account/tpsp/:tpsp_id',
    auth: 'account',
    response: tpspWireSchema,
    body: updateBody,
    handle: async ({ ctx, principal, params, body }) => ({
      body: tpspToWire(
        await tpspService.update(ctx, principal.account.id, parseResourceId(params.tpsp_id), {
          ...body,
          kind: body.type,
        }),
      ),
    }),
  }),
  route({
    method: 'DELETE',
    path: '/account/tpsp/:tpsp_id',
    auth: 'account',
    response: deletedSchema,
    handle: async ({ ctx, principal, params }) => {
      const tpsp = await tpspService.delete(ctx, principal.account.id, parseResourceId(params.tpsp_id));
      return { body: { id: tpsp.id, message: `TPSP (${tpsp.name}) has been deleted successfully` } };
    },
  }),
];
