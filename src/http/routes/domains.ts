import { z } from 'zod';
import type { DomainRecord } from '../../store/index.js';
import { domainToWire, domainWireSchema } from '../../domain/domain-wire.js';
import { domainWireOf, domainWiresOf } from '../../domain/receiving.js';
import { deletedSchema } from '../../model/wire-schemas.js';
import { domainService, type DomainsDeps } from '../../domain/domains.js';
import { domainNameSchema } from '../../domain/name.js';
import { verifyDomainNow, type DomainVerifier } from '../../domain/verification.js';
import { cancelDkimRotation, startDkimRotation } from '../../domain/dkim-rotation.js';
import { parseResourceId } from '../../model/ids.js';
import { listQuerySchema } from '../../model/paging.js';
import { route } from '../route.js';

/** What this module uses of the instance: what it calls uses ({@link DomainsDeps}), and the fields below. */
export interface DomainRoutesDeps extends DomainsDeps {
  readonly domainVerifier: DomainVerifier;
}

const createBody = z.strictObject({ name: domainNameSchema });

/** A route on one domain of the calling sub-account (`:domain_id`) that answers the domain as `act` leaves it. */
function oneDomainRoute(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  act: (ctx: DomainRoutesDeps, subAccountId: number, domainId: number | null) => Promise<DomainRecord>,
) {
  return route({
    method,
    path,
    auth: 'subaccount',
    response: domainWireSchema,
    handle: async ({ ctx, principal, params }) => {
      const subAccountId = principal.subAccount.id;
      const domainId = parseResourceId(params.domain_id);
      // Whether it receives is read first: a verify that close() waited for ends after the store
      // closed, and only a receiving domain needs its state read again (its MX check just ran).
      const receiving = domainId === null ? null : await ctx.store.inbound.getDomain(subAccountId, domainId);
      const domain = await act(ctx, subAccountId, domainId);
      const inbound = receiving && (await ctx.store.inbound.getDomain(subAccountId, domain.id));
      return { body: domainToWire(domain, { inbound, hostname: ctx.config.inbound.hostname }) };
    },
  });
}

/** `/subaccount/domain`: the sending domains of the calling sub-account. */
export const domainRoutes = [
  route({
    method: 'POST',
    path: '/subaccount/domain',
    auth: 'subaccount',
    response: domainWireSchema,
    body: createBody,
    handle: async ({ ctx, principal, body }) => {
      const domain = await domainService.create(ctx, principal.subAccount.id, body.name);
      // 200 rather than 201: the reference document's create answers 200.
      return { body: await domainWireOf(ctx, domain) };
    },
  }),
  route({
    method: 'GET',
    path: '/subaccount/domain',
    auth: 'subaccount',
    response: z.array(domainWireSchema),
    query: listQuerySchema,
    handle: async ({ ctx, principal, query }) => {
      const domains = await domainService.list(ctx, principal.subAccount.id, query);
      return { body: await domainWiresOf(ctx, principal.subAccount.id, domains) };
    },
  }),
  oneDomainRoute('GET', '/subaccount/domain/:domain_id', (ctx, subAccountId, id) =>
    domainService.get(ctx, subAccountId, id),
  ),
  // The path of the reference document's 2022 version; it checks now and answers the domain.
  oneDomainRoute('POST', '/subaccount/domain/:domain_id/verify', verifyDomainNow),
  route({
    method: 'DELETE',
    path: '/subaccount/domain/:domain_id',
    auth: 'subaccount',
    response: deletedSchema,
    handle: async ({ ctx, principal, params }) => {
      const domain = await domainService.delete(ctx, principal.subAccount.id, parseResourceId(params.domain_id));
      return { body: { id: domain.id, message: `Domain (${domain.name}) has been deleted successfully.` } };
    },
  }),
  // A new DKIM key under a new selector, pending until its record verifies (docs/domains.md).
  oneDomainRoute('POST', '/subaccount/domain/:domain_id/dkim/rotate', startDkimRotation),
  // Abandons the rotation whose key still waits for its record (docs/domains.md).
  oneDomainRoute('DELETE', '/subaccount/domain/:domain_id/dkim/rotate', cancelDkimRotation),
];
