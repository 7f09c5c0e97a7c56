import { z } from 'zod';
import { ValidationError } from '../../errors.js';
import { ipPoolService, type PoolFields } from '../../ip/pools.js';
import { poolDeletedToWire, poolToWire, poolWireSchema } from '../../ip/wire.js';
import { deletedSchema } from '../../model/wire-schemas.js';
import { parseResourceId } from '../../model/ids.js';
import { listQuerySchema } from '../../model/paging.js';
import { nameSchema } from '../../model/text.js';
import { MAX_ROUTING_METADATA_LENGTH } from '../../routing/metadata.js';
import type { AnyRoute } from '../route.js';
import { route } from '../route.js';
import { ipAddressRoutes } from './ip-addresses.js';
import { tpspRoutes } from './ip-tpsps.js';

/** Most IPs and TPSPs one pool holds. */
export const MAX_POOL_IPS = 1000;
export const MAX_POOL_TPSPS = 100;

/** `{publicIP}` as the spec and the reference spell it; `{publicIp}` (the response spelling) too. */
const poolIp = z
  .strictObject({ publicIP: z.string().max(100).optional(), publicIp: z.string().max(100).optional() })
  .refine((ip) => (ip.publicIP === undefined) !== (ip.publicIp === undefined), 'give publicIP')
  .transform((ip) => (ip.publicIP ?? ip.publicIp)!);

const poolFields = {
  ips: z.array(poolIp).max(MAX_POOL_IPS),
  tpsps: z.array(z.int().min(1)).max(MAX_POOL_TPSPS),
  routingStrategy: z.int().min(0).max(3),
  routingMetaData: z.string().max(MAX_ROUTING_METADATA_LENGTH),
  shouldOverflow: z.boolean(),
  // The reference's request spellings of shouldOverflow (overflowStrategy 1 = use the overflow pool).
  overflowPool: z.boolean(),
  overflowStrategy: z.int().min(0).max(1),
  overflowPoolName: z.string().trim().max(100),
  warmupInterval: z.int().min(1).max(720),
};
const optionalFields = Object.fromEntries(Object.entries(poolFields).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof poolFields]: z.ZodOptional<(typeof poolFields)[K]>;
};

const createBody = z.strictObject({ name: nameSchema(100), ...optionalFields });
const updateBody = z
  .strictObject({ name: nameSchema(100).optional(), ...optionalFields })
  .refine((body) => Object.keys(body).length > 0, 'give at least one field to change');

type PoolBody = z.infer<typeof updateBody>;

/** The caller's fields, with the three spellings of "should overflow" reconciled. */
function toFields(body: PoolBody): PoolFields {
  const { overflowPool, overflowStrategy, shouldOverflow, ...rest } = body;
  const flags = [shouldOverflow, overflowPool, overflowStrategy === undefined ? undefined : overflowStrategy === 1];
  const given = flags.filter((f): f is boolean => f !== undefined);
  if (given.some((f) => f !== given[0])) {
    throw new ValidationError('the body is not valid (shouldOverflow, overflowPool and overflowStrategy disagree)', [
      { path: 'shouldOverflow', message: 'shouldOverflow, overflowPool and overflowStrategy disagree' },
    ]);
  }
  return { ...rest, shouldOverflow: given[0] };
}

const poolRoutes = [
  route({
    method: 'POST',
    path: '/account/ippool',
    auth: 'account',
    response: poolWireSchema,
    body: createBody,
    handle: async ({ ctx, principal, body }) => ({
      body: poolToWire(await ipPoolService.create(ctx, principal.account.id, { ...toFields(body), name: body.name })),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/ippool',
    auth: 'account',
    response: z.array(poolWireSchema),
    query: listQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: (await ipPoolService.list(ctx, principal.account.id, query)).map(poolToWire),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/ippool/:ippool_id',
    auth: 'account',
    response: poolWireSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: poolToWire(await ipPoolService.get(ctx, principal.account.id, parseResourceId(params.ippool_id))),
    }),
  }),
  route({
    method: 'PUT',
    path: '/account/ippool/:ippool_id',
    auth: 'account',
    response: poolWireSchema,
    body: updateBody,
    handle: async ({ ctx, principal, params, body }) => ({
      body: poolToWire(
        await ipPoolService.update(ctx, principal.account.id, parseResourceId(params.ippool_id), toFields(body)),
      ),
    }),
  }),
  route({
    method: 'DELETE',
    path: '/account/ippool/:ippool_id',
    auth: 'account',
    response: deletedSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: poolDeletedToWire(await ipPoolService.delete(ctx, principal.account.id, parseResourceId(params.ippool_id))),
    }),
  }),
];

/** `/account/ip`, `/account/tpsp` and `/account/ippool`: sending IPs, TPSPs and IP pools. */
export const ipPoolRoutes: AnyRoute[] = [...ipAddressRoutes, ...tpspRoutes, ...poolRoutes];
