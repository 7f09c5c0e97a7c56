import { z } from 'zod';
import { parseResourceId } from '../../model/ids.js';
import { listQuerySchema } from '../../model/paging.js';
import { deletedSchema } from '../../model/wire-schemas.js';
import { nameSchema } from '../../model/text.js';
import { templateService } from '../../template/templates.js';
import {
  templateSummaryToWire,
  templateSummaryWireSchema,
  templateToWire,
  templateVersionSummaryWireSchema,
  templateVersionWireSchema,
  templateWireSchema,
  versionSummaryToWire,
  versionToWire,
} from '../../template/template-wire.js';
import { route, type AnyRoute } from '../route.js';

/** A Handlebars part: any text but U+0000, which PostgreSQL text cannot hold. */
const part = z.string().refine((value) => !value.includes('\u0000'), 'must not contain a NUL character');
/** As a send's subject: at most 998 characters (RFC 5322's line limit). */
const subject = z.string().max(998).pipe(part);

const createBody = z
  .strictObject({
    name: nameSchema(100),
    subject,
    htmlBody: part.optional(),
    textBody: part.optional(),
    ampBody: part.optional(),
  })
  .refine((body) => body.htmlBody !== undefined || body.textBody !== undefined || body.ampBody !== undefined, {
    message: 'give htmlBody, textBody or ampBody',
    path: ['htmlBody'],
  });

// `null` removes a body from the new version; at least one body must remain (checked by the service).
const updateBody = z
  .strictObject({
    name: nameSchema(100).optional(),
    subject: subject.optional(),
    htmlBody: part.nullable().optional(),
    textBody: part.nullable().optional(),
    ampBody: part.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'give at least one of name, subject, htmlBody, textBody, ampBody');

/** `/subaccount/template`: the stored templates of the calling sub-account and their versions (docs/templates.md). */
export const templateRoutes: AnyRoute[] = [
  route({
    method: 'POST',
    path: '/subaccount/template',
    auth: 'subaccount',
    response: templateWireSchema,
    body: createBody,
    handle: async ({ ctx, principal, body }) => {
      const { name, ...content } = body;
      return { body: templateToWire(await templateService.create(ctx, principal.subAccount.id, name, content)) };
    },
  }),
  route({
    method: 'GET',
    path: '/subaccount/template',
    auth: 'subaccount',
    response: z.array(templateSummaryWireSchema),
    query: listQuerySchema,
    handle: async ({ ctx, principal, query }) => ({
      body: (await templateService.list(ctx, principal.subAccount.id, query)).map(templateSummaryToWire),
    }),
  }),
  route({
    method: 'GET',
    path: '/subaccount/template/:template_id',
    auth: 'subaccount',
    response: templateWireSchema,
    handle: async ({ ctx, principal, params }) => ({
      body: templateToWire(
        await templateService.get(ctx, principal.subAccount.id, parseResourceId(params.template_id)),
      ),
    }),
  }),
  route({
    method: 'PUT',
    path: '/subaccount/template/:template_id',
    auth: 'subaccount',
    response: templateWireSchema,
    body: updateBody,
    handle: async ({ ctx, principal, params, body }) => ({
      body: templateToWire(
        await templateService.update(ctx, principal.subAccount.id, parseResourceId(params.template_id), body),
      ),
    }),
  }),
  route({
    method: 'GET',
    path: '/subaccount/template/:template_id/version',
    auth: 'subaccount',
    response: z.array(templateVersionSummaryWireSchema),
    handle: async ({ ctx, principal, params }) => {
      const { template, versions } = await templateService.versions(
        ctx,
        principal.subAccount.id,
        parseResourceId(params.template_id),
      );
      return { body: versions.map((version) => versionSummaryToWire(version, template.activeVersion)) };
    },
  }),
  route({
    method: 'GET',
    path: '/subaccount/template/:template_id/version/:version',
    auth: 'subaccount',
    response: templateVersionWireSchema,
    handle: async ({ ctx, principal, params }) => {
      const found = await templateService.version(
        ctx,
        principal.subAccount.id,
        parseResourceId(params.template_id),
        parseResourceId(params.version),
      );
      return { body: versionToWire(found.version, found.template.activeVersion) };
    },
  }),
  route({
    method: 'POST',
    path: '/subaccount/template/:template_id/version/:version/activate',
    auth: 'subaccount',
    response: templateWireSchema,
    handle: async ({ ctx, principal, params }) => {
      const template = await templateService.activate(
        ctx,
        principal.subAccount.id,
        parseResourceId(params.template_id),
        parseResourceId(params.version),
      );
      return { body: templateToWire(template) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/subaccount/template/:template_id',
    auth: 'subaccount',
    response: deletedSchema,
    handle: async ({ ctx, principal, params }) => {
      const deleted = await templateService.delete(ctx, principal.subAccount.id, parseResourceId(params.template_id));
      return { body: { id: deleted.id, message: `Template (${deleted.name}) has been deleted successfully.` } };
    },
  }),
];
