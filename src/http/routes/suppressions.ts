import { z } from 'zod';
import type { AuthKind, Principal } from '../auth.js';
import { exportSuppressions } from '../../suppression/csv-export.js';
import { importSuppressions, MAX_IMPORT_BYTES } from '../../suppression/csv-import.js';
import { expiryTextSchema, suppressionEntrySchema } from '../../suppression/entries.js';
import { suppressionListQuerySchema } from '../../suppression/list-query.js';
import {
  importReportWireSchema,
  suppressionToWire,
  suppressionWireSchema,
} from '../../suppression/suppression-wire.js';
import { messageOnlySchema } from '../../model/wire-schemas.js';
import { MAX_SUPPRESSIONS_PER_REQUEST, suppressionService } from '../../suppression/suppressions.js';
import type { SuppressionOwner } from '../../store/suppression-store.js';
import { route, type AnyRoute } from '../route.js';
import { StreamedBody } from '../streamed-body.js';
import { bodyChunks } from '../streamed-request.js';

const tooMany = `at most ${MAX_SUPPRESSIONS_PER_REQUEST} addresses per request`;

/**
 * An array of `{email}` objects. The length is checked before any element is, so a huge array is
 * refused with one issue instead of one per element.
 */
const addressList = <T>(entry: z.ZodType<T>) =>
  z.array(z.unknown()).max(MAX_SUPPRESSIONS_PER_REQUEST, tooMany).pipe(z.array(entry));

/** One entry of the create body: an address or `*@domain`, and an optional ISO 8601 expiry. */
const newEntry = z.strictObject({ email: suppressionEntrySchema, expires: expiryTextSchema.optional() });

const createBody = z
  .strictObject({
    hardBounce: addressList(newEntry).optional(),
    manual: addressList(newEntry).optional(),
    unsubscribe: addressList(newEntry).optional(),
    spamComplaint: addressList(newEntry).optional(),
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

/**
 * The routes of one suppression list under `base`: list, add, remove, CSV import and export. The
 * sub-account's list and the account's (which applies to all its sub-accounts) have the same shapes.
 */
function suppressionListRoutes<A extends AuthKind>(
  base: string,
  auth: A,
  ownerOf: (principal: Principal<A>) => SuppressionOwner,
): AnyRoute[] {
  return [
    route({
      method: 'GET',
      path: base,
      auth,
      response: z.array(suppressionWireSchema),
      query: suppressionListQuerySchema,
      handle: async ({ ctx, principal, query }) => {
        const records = await suppressionService.list(ctx, ownerOf(principal), query);
        return { body: records.map(suppressionToWire) };
      },
    }),
    route({
      method: 'POST',
      path: base,
      auth,
      response: z.array(suppressionWireSchema),
      body: createBody,
      handle: async ({ ctx, principal, body }) => {
        const records = await suppressionService.add(ctx, ownerOf(principal), body);
        return { body: records.map(suppressionToWire) };
      },
    }),
    route({
      method: 'DELETE',
      path: base,
      auth,
      response: messageOnlySchema,
      body: deleteBody,
      handle: async ({ ctx, principal, body }) => {
        const removed = await suppressionService.remove(
          ctx,
          ownerOf(principal),
          body.suppressions.map((entry) => entry.email),
        );
        const noun = removed === 1 ? 'suppression has' : 'suppressions have';
        return { body: { message: `${removed} ${noun} been deleted successfully` } };
      },
    }),
    route({
      method: 'POST',
      path: `${base}/import`,
      auth,
      response: importReportWireSchema,
      streamedBody: {
        mediaType: 'text/csv',
        limitBytes: MAX_IMPORT_BYTES,
        description:
          'A header line naming the columns (email, and optionally type and expires), then one entry per line (docs/suppressions.md).',
      },
      handle: async ({ ctx, principal, request }) => ({
        body: await importSuppressions(ctx, ownerOf(principal), bodyChunks(request, MAX_IMPORT_BYTES)),
      }),
    }),
    route({
      method: 'GET',
      path: `${base}/export`,
      auth,
      response: suppressionWireSchema,
      export: 'csv',
      handle: ({ ctx, principal }) =>
        Promise.resolve({
          body: new StreamedBody('text/csv; charset=utf-8', exportSuppressions(ctx, ownerOf(principal)), {
            'content-disposition': 'attachment; filename="suppressions.csv"',
          }),
        }),
    }),
  ];
}

/**
 * `/subaccount/suppression`: the suppression list of the calling sub-account; `/account/suppression`:
 * the account's own list, which suppresses for every sub-account of the account.
 */
export const suppressionRoutes = [
  ...suppressionListRoutes('/subaccount/suppression', 'subaccount', (principal) => principal.subAccount.id),
  ...suppressionListRoutes('/account/suppression', 'account', (principal) => ({ accountId: principal.account.id })),
];
