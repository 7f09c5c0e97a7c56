import { z } from 'zod';
import { isHostname } from '../../ip/hostnames.js';
import { ipService } from '../../ip/ips.js';
import { ipToWire } from '../../ip/wire.js';
import { parseResourceId } from '../../model/ids.js';
import { listQuerySchema } from '../../model/paging.js';
import { route } from '../route.js';

/** Most addresses one allocation takes. */
export const MAX_ALLOCATION = 1000;

const allocateBody = z.strictObject({
  ips: z.array(z.string().max(100)).min(1).max(MAX_ALLOCATION),
  // The reference's IPAllocationRequest requires it; pool overflow is configured on the pool, so
  // it is accepted for compatibility and has no effect.
  overflowPool: z.boolean().optional(),
  type: z.union([z.literal(0), z.literal(1)]).optional(),
  autoWarmupEnabled: z.boolean().optional(),
});

const updateBody = z
  .strictObject({
    autoWarmupEnabled: z.boolean().optional(),
    state: z.union([z.literal(0), z.literal(1)]).optional(),
    reverseDnsHostname: z
      .string()
      .max(253)
      .transform((v) => v.toLowerCase())
      .refine((v) => v === '' || isHostname(v), 'must be a host name such as mta1.example.com, or empty')
      .optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'give at least one of autoWarmupEnabled, state, reverseDnsHostname');

/** `/account/ip`: the account's sending IPs. */
export const ipAddressRoutes = [
  route({
    method: 'GET',
    path: '/account/ip',
    auth: 'account',
    query: listQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: (await ipService.list(ctx, principal.account.id, query)).map(ipToWire),
    }),
  }),
  // Before `/account/ip/:ip_id`: the first route whose path and method match wins.
  route({
    method: 'PUT',
    path: '/account/ip/allocate',
    auth: 'account',
    body: allocateBody,
    handle: async ({ ctx, principal, body }) => {
      const ips = await ipService.allocate(ctx, principal.account.id, body);
      // The reference answers one IP; with several addresses `allocated` lists them all.
      return { body: { ...ipToWire(ips[0]!), allocated: ips.map(ipToWire) } };
    },
  }),
  route({
    method: 'GET',
    path: '/account/ip/:ip_id',
    auth: 'account',
    handle: async ({ ctx, principal, params }) => ({
      body: ipToWire(await ipService.get(ctx, principal.account.id, parseResourceId(params.ip_id))),
    }),
  }),
  route({
    method: 'PUT',
    path: '/account/ip/:ip_id',
    auth: 'account',
    body: updateBody,
    handle: async ({ ctx, principal, params, body }) => ({
      body: ipToWire(await ipService.update(ctx, principal.account.id, parseResourceId(params.ip_id), body)),
    }),
  }),
  route({
    method: 'DELETE',
    path: '/account/ip/:ip_id',
    auth: 'account',
    handle: async ({ ctx, principal, params }) => {
      const ip = await ipService.delete(ctx, principal.account.id, parseResourceId(params.ip_id));
      return { body: { id: ip.id, message: `IP (${ip.publicIp}) has been deleted successfully` } };
    },
  }),
];
