/**
 * `POST /subaccount/email/template`: the vendor's `EmailMessageWithTemplate` turned into the plain
 * send request, which then goes through the plain send path unchanged (docs/templates.md).
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { plainTextSchema } from '../model/text.js';
import type { TemplateUse } from '../store/index.js';
import { RESERVED_FIELD } from '../template/renderer.js';
import { templateService, type TemplatesDeps } from '../template/templates.js';
import { guardKeys, MAX_CUSTOM_FIELDS, MAX_FIELD_NAME, sendRequestFields, type sendRequestSchema } from './request.js';

/** What this module uses of the instance: what it calls uses, {@link TemplatesDeps}, and nothing more. */
export type TemplateSendDeps = TemplatesDeps;

/**
 * `templateVariables`: names as custom field names; the values are checked to be strings by
 * {@link templateSendRequest} (422 `TEMPLATE_VARIABLE_NOT_STRING`), so the JSON Schema says string.
 */
const templateVariablesSchema = guardKeys(
  z
    .record(z.string().min(1).max(MAX_FIELD_NAME), z.unknown())
    .refine(
      (fields) => Object.keys(fields).length <= MAX_CUSTOM_FIELDS,
      `at most ${MAX_CUSTOM_FIELDS} template variables`,
    )
    .refine(
      (fields) => !(RESERVED_FIELD in fields),
      `"${RESERVED_FIELD}" is reserved and cannot be a template variable`,
    ),
  'a template variable',
).meta({ type: 'object', additionalProperties: { type: 'string' } });

/**
 * The body of `POST /subaccount/email/template`: the plain send's fields, `subject` optional (the
 * template has one), and the template by name (`template`) or id (`templateId`, a string as the
 * vendor types it, or a number), with `templateVariables`.
 */
export const templateSendRequestSchema = sendRequestFields
  .extend({
    subject: sendRequestFields.shape.subject.optional(),
    template: plainTextSchema(200).pipe(z.string().trim().min(1)).optional(),
    templateId: z.union([z.string().max(20), z.number()]).optional(),
    templateVariables: templateVariablesSchema.optional(),
  })
  .refine((r) => (r.template === undefined) !== (r.templateId === undefined), {
    message: 'give template (a name) or templateId, one of them',
    path: ['template'],
  });

/** A validated `POST /subaccount/email/template` body. */
export type TemplateSendRequest = z.infer<typeof templateSendRequestSchema>;

/** The plain send request a template send stands for (to be validated as one), and the template used. */
export interface ResolvedTemplateSend {
  request: z.input<typeof sendRequestSchema>;
  template: TemplateUse;
}

/**
 * Turns a template send into the plain send request: the template's active version gives the
 * subject and bodies (a body the template lacks may come from the request; the request's subject
 * and the bodies the template has are not used), and `templateVariables` are merged under each
 * recipient's `customFields` (a recipient's own field of the same name wins; a cc or bcc copy's
 * own fields win over both, as in a plain send). Refuses with 422 a variable that is not a string
 * (`TEMPLATE_VARIABLE_NOT_STRING`) and a template the sub-account does not have
 * (`UNKNOWN_TEMPLATE`). The result still goes through the plain send's validation.
 */
export async function templateSendRequest(
  ctx: TemplateSendDeps,
  subAccountId: number,
  body: TemplateSendRequest,
): Promise<ResolvedTemplateSend> {
  const { template: name, templateId, templateVariables, ...plain } = body;
  const variables: Record<string, string> = {};
  for (const [key, value] of Object.entries(templateVariables ?? {})) {
    if (typeof value !== 'string') {
      const message = 'must be a string';
      throw new ValidationError(
        `the template variable ${JSON.stringify(key)} is not a string`,
        [{ path: `templateVariables.${key}`, message }],
        'TEMPLATE_VARIABLE_NOT_STRING',
      );
    }
    variables[key] = value;
  }
  const template = await templateService.forSend(ctx, subAccountId, { template: name, templateId });
  const { active } = template;
  const hasVariables = Object.keys(variables).length > 0;
  const request: z.input<typeof sendRequestSchema> = {
    ...plain,
    subject: active.subject,
    htmlBody: active.htmlBody ?? plain.htmlBody,
    textBody: active.textBody ?? plain.textBody,
    ampBody: active.ampBody ?? plain.ampBody,
    to: plain.to.map((to) => (hasVariables ? { ...to, customFields: { ...variables, ...to.customFields } } : to)),
  };
  return { request, template: { id: template.id, name: template.name, version: active.version } };
}
