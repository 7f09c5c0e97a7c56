import { z } from 'zod';
import { emailAddressSchema } from '../../model/email-address.js';
import { suppressionListQuerySchema } from '../../suppression/list-query.js';
import { suppressionToWire, suppressionWireSchema } from '../../suppression/suppression-wire.js';
import { messageOnlySchema } from '../../model/wire-schemas.js';
import { MAX_SUPPRESSIONS_PER_REQUEST, suppressionService } from '../../suppression/suppressions.js';
import { route } from '../route.js';

const tooMany = `at most ${MAX_SUPPRESSIONS_PER_REQUEST} addresses per request`;

/**
 * An array of `{email}` objects. The length is checked before any element is, so a huge array is
 * refused with one issue instead of one per element.
 */
const addressList = <T>(entry: z.ZodType<T>) =>
  z.array(z.unknown()).max(MAX_SUPPRESSIONS_PER_REQUEST, tooMany).pipe(z.array(entry));

const createBody = z
  .strictObject({
    hardBounce: addressList(z.strictObject({ email: emailAddressSchema })).optional(),
    manual: addressList(z.strictObject({ email: emailAddressSchema })).optional(),
    unsubscribe: addressList(z.strictObject({ email: emailAddressSchema })).optional(),
    spamComplaint: addressList(z.strictObject({ email: emailAddressSchema })).optional(),
  })
  .superRefine((body, check) => {
    const total = Object.values(body).reduce((sum, list) => sum + (list?.length ?? 0), 0);
    if (total === 0)
      check.addIssue({
        code: 'custom',
        message: 'give at least one address in hardBounce, manual, unsubscribe or spamComplaint',
      });
    if (total > MAX_SUPPRESSIONS_PER_REQUEST) check.addIssue({ code: 'custom', message: tooMany });
  });

/*
 * Removal checks less than creation (any text without control characters, up to the address
 * length limit), so that an address stored by an older, laxer version can still be removed.
 */
const storedAddress = z
  .string()
  .min(1, 'must not be empty')
  .max(320, 'must be at most 320 characters')
  .refine(
    (value) => !/[\s\u0000-\u001f\u007f-\u009f]/u.test(value),
    'must not contain spaces, line breaks or control characters',
  );

const deleteBody = z.strictObject({
  suppressions: addressList(z.strictObject({ email: storedAddress })).refine(
    (list) => list.length > 0,
    'give at least one address',
  ),
});

/** `/subaccount/suppression`: the suppression list of the calling sub-account. */
export const suppressionRoutes = [
  route({
    method: 'GET',
    path: '/subaccount/suppression',
    auth: 'subaccount',
    response: z.array(suppressionWireSchema),
    query: suppressionListQuerySchema,
    handle: async ({ ctx, principal, query }) => {
      const records = await suppressionService.list(ctx, principal.subAccount.id, query);
      return { body: records.map(suppressionToWire) };
    },
  }),
  route({
    method: 'POST',
    path: '/subaccount/suppression',
    auth: 'subaccount',
    response: z.array(suppressionWireSchema),
    body: createBody,
    handle: async ({ ctx, principal, body }) => {
      const records = await suppressionService.add(ctx, principal.subAccount.id, body);
      return { body: records.map(suppressionToWire) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/subaccount/suppression',
    auth: 'subaccount',
    response: messageOnlySchema,
    body: deleteBody,
    handle: async ({ ctx, principal, body }) => {
      const removed = await suppressionService.remove(
        ctx,
        principal.subAccount.id,
        body.suppressions.map((entry) => entry.email),
      );
      const noun = removed === 1 ? 'suppression has' : 'suppressions have';
      return { body: { message: `${removed} ${noun} been deleted successfully` } };
    },
  }),
];
