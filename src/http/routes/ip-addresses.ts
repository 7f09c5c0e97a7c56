import { z } from 'zod';
import { isHostname } from '../../ip/hostnames.js';
import { ipService } from '../../ip/ips.js';
import { ipAllocationWireSchema, ipToWire, ipWireSchema } from '../../ip/wire.js';
import { deletedSchema } from '../../model/wire-schemas.js';
import type { IpRecord } from '../../store/index.js';
import { parseResourceId } from '../../model/ids.js';
import { listQuerySchema } from '../../model/paging.js';
import { route } from '../route.js';
import type { MailplaneConfig } from '../../mailplane-config.js';
import type { WarmupService } from '../../warmup/service.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface IpAddressRoutesDeps {
  readonly config: MailplaneConfig;
  readonly warmup: WarmupService;
}

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

/** The IPs as the API shows them, with the state of their warmups. */
async function ipsToWire(ctx: IpAddressRoutesDeps, accountId: number, ips: readonly IpRecord[]) {
  const views = await ctx.warmup.views(accountId, ips);
  const stages = ctx.config.warmup.plan.stages;
  return ips.map((ip) => {
    const view = views.get(ip.id);
    return ipToWire(ip, view && { view, stages });
  });
}

/** `/account/ip`: the account's sending IPs. */
export const ipAddressRoutes = [
  route({
    method: 'GET',
    path: '/account/ip',
    auth: 'account',
    response: z.array(ipWireSchema),
    query: listQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: await ipsToWire(ctx, principal.account.id, await ipService.list(ctx, principal.account.id, query)),
    }),
  }),
  // Before `/account/ip/:ip_id`: the first route whose path and method match wins.
  route({
    method: 'PUT',
    path: '/account/ip/allocate',
    auth: 'account',
    response: ipAllocationWireSchema,
    body: allocateBody,
    handle: async ({ ctx, principal, body }) => {
      const ips = await ipsToWire(ctx, principal.account.id, await ipService.allocate(ctx, principal.account.id, body));
      // The reference answers one IP; with several addresses `allocated` lists them all.
      return { body: { ...ips[0]!, allocated: ips } };
    },
  }),
  route({
    method: 'GET',
    path: '/account/ip/:ip_id',
    auth: 'account',
    response: ipWireSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: (
        await ipsToWire(ctx, principal.account.id, [
          await ipService.get(ctx, principal.account.id, parseResourceId(params.ip_id)),
        ])
      )[0]!,
    }),
  }),
  route({
    method: 'PUT',
    path: '/account/ip/:ip_id',
    auth: 'account',
    response: ipWireSchema,
    body: updateBody,
    handle: async ({ ctx, principal, params, body }) => ({
      body: (
        await ipsToWire(ctx, principal.account.id, [
          await ipService.update(ctx, principal.account.id, parseResourceId(params.ip_id), body),
        ])
      )[0]!,
    }),
  }),
  route({
    method: 'DELETE',
    path: '/account/ip/:ip_id',
    auth: 'account',
    response: deletedSchema,
    handle: async ({ ctx, principal, params }) => {
      const ip = await ipService.delete(ctx, principal.account.id, parseResourceId(params.ip_id));
      return { body: { id: ip.id, message: `IP (${ip.publicIp}) has been deleted successfully` } };
    },
  }),
];
