import {
  getProtection,
  protectionWireSchema,
  setSubAccountProtection,
  updateProtection,
} from '../../alerts/protection-api.js';
import { accountProtectionBody, PROTECTION_WINDOW_HOURS, subAccountProtectionBody } from '../../alerts/protection.js';
import { parseResourceId } from '../../model/ids.js';
import { route, type AnyRoute } from '../route.js';

/**
 * `/account/protection`: the automatic protection of the calling account's sub-accounts
 * (docs/reputation.md, "Automatic protection"; mailplane's addition). Account keys only: a
 * sub-account never loosens its own protection.
 */
export const protectionRoutes: AnyRoute[] = [
  route({
    method: 'GET',
    path: '/account/protection',
    auth: 'account',
    response: protectionWireSchema,
    handle: async ({ ctx, principal }) => ({
      body: await getProtection(ctx, principal.account.id, PROTECTION_WINDOW_HOURS),
    }),
  }),
  route({
    method: 'PUT',
    path: '/account/protection',
    auth: 'account',
    response: protectionWireSchema,
    body: accountProtectionBody,
    handle: async ({ ctx, principal, body }) => ({
      body: await updateProtection(ctx, principal.account.id, body, PROTECTION_WINDOW_HOURS),
    }),
  }),
  route({
    method: 'PUT',
    path: '/account/protection/subaccount/:subaccount_id',
    auth: 'account',
    response: protectionWireSchema,
    body: subAccountProtectionBody,
    handle: async ({ ctx, principal, params, body }) => ({
      body: await setSubAccountProtection(
        ctx,
        principal.account.id,
        parseResourceId(params.subaccount_id),
        body,
        PROTECTION_WINDOW_HOURS,
      ),
    }),
  }),
  route({
    method: 'DELETE',
    path: '/account/protection/subaccount/:subaccount_id',
    auth: 'account',
    response: protectionWireSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: await setSubAccountProtection(
        ctx,
        principal.account.id,
        parseResourceId(params.subaccount_id),
        null,
        PROTECTION_WINDOW_HOURS,
      ),
    }),
  }),
];
