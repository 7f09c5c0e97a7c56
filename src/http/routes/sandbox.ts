import { z } from 'zod';
import { NotFoundError } from '../../errors.js';
import { parseResourceId } from '../../model/ids.js';
import { listQuerySchema } from '../../model/paging.js';
import { verifySandboxDkim } from '../../sandbox/dkim.js';
import type { SandboxMessageSummary } from '../../store/index.js';
import { epochNsSchema } from '../../model/wire-schemas.js';
import { route } from '../route.js';

/** The wire shape of {@link summaryToWire}. */
const sandboxSummaryWireSchema = z.object({
  id: z.int(),
  messageId: z.string(),
  mailFrom: z.string(),
  rcptTo: z.array(z.string()),
  subject: z.string(),
  received: epochNsSchema,
});

/** A captured message with its raw text and the DKIM check of its first signature. */
const sandboxMessageWireSchema = sandboxSummaryWireSchema.extend({
  raw: z.string(),
  dkim: z.object({ result: z.string(), domain: z.string(), selector: z.string(), comment: z.string() }),
});

/** A captured message as the API shows it. */
function summaryToWire(message: SandboxMessageSummary): z.output<typeof sandboxSummaryWireSchema> {
  return {
    id: message.id,
    messageId: message.messageId ?? '',
    mailFrom: message.mailFrom,
    rcptTo: message.rcptTo,
    subject: message.subject,
    received: message.received,
  };
}

/** The messages the sandbox mail catcher captured for the account (docs/sandbox.md). */
export const sandboxRoutes = [
  route({
    method: 'GET',
    path: '/account/sandbox/message',
    auth: 'account',
    response: z.array(sandboxSummaryWireSchema),
    query: listQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: (await ctx.store.sandbox.list(principal.account.id, { limit: query.limit, offset: query.offset })).map(
        summaryToWire,
      ),
    }),
  }),
  route({
    method: 'GET',
    path: '/account/sandbox/message/:sandbox_message_id',
    auth: 'account',
    response: sandboxMessageWireSchema,
    handle: async ({ ctx, principal, params }) => {
      const id = parseResourceId(params.sandbox_message_id);
      const found = id === null ? null : await ctx.store.sandbox.get(principal.account.id, id);
      if (!found)
        throw new NotFoundError(
          'SANDBOX_MESSAGE_NOT_FOUND',
          `no sandbox message with id ${params.sandbox_message_id ?? ''} in this account`,
        );
      // Checked when read, against the DNS as it is now (the sandbox's records for sandbox domains).
      const dkim = await verifySandboxDkim(found.raw, ctx.resolver);
      return { body: { ...summaryToWire(found), raw: found.raw.toString('utf8'), dkim } };
    },
  }),
];
