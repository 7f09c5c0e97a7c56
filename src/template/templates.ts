import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { parseResourceId } from '../model/ids.js';
import type { ListQuery } from '../model/paging.js';
import { nowNs, type Clock } from '../model/time.js';
import type {
  TemplateContent,
  TemplateRecord,
  TemplateSummary,
  TemplateVersionRecord,
  TemplateVersionSummary,
} from '../store/index.js';
import type { TemplateCompiler } from './renderer.js';
import type { MailplaneStore } from '../store/index.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface TemplatesDeps {
  readonly store: MailplaneStore;
  readonly clock: Clock;
  readonly templateCompiler: TemplateCompiler;
}

/** How many versions of a template are kept: an update beyond them deletes the oldest. */
export const TEMPLATE_VERSIONS_KEPT = 20;

/**
 * How many templates one sub-account may hold: with 20 versions of four parts of up to 512 K
 * characters each, this bounds what one sub-account can store (checked before a create, so
 * concurrent creates may pass it by a few).
 */
export const MAX_TEMPLATES_PER_SUBACCOUNT = 1000;

/** What `PUT /subaccount/template/{id}` changes: a part given replaces the active version's, `null` removes it. */
export interface TemplatePatch {
  name?: string;
  subject?: string;
  htmlBody?: string | null;
  textBody?: string | null;
  ampBody?: string | null;
}

/** How a send names its template: the vendor's `template` (a name) or `templateId`. */
export interface TemplateReference {
  template?: string;
  templateId?: string | number;
}

const BODIES = ['htmlBody', 'textBody', 'ampBody'] as const;

const duplicateName = (name: string) =>
  new ConflictError('TEMPLATE_EXISTS', `a template named "${name}" already exists in this sub-account`);
const notFound = (id: number | string) =>
  new NotFoundError('TEMPLATE_NOT_FOUND', `no template with id ${id} in this sub-account`);
const versionNotFound = (id: number, version: number | string) =>
  new NotFoundError(
    'TEMPLATE_VERSION_NOT_FOUND',
    `template ${id} has no version ${version} (the last ${TEMPLATE_VERSIONS_KEPT} are kept)`,
  );

/**
 * Refuses (422) content a send could not use: no body, or a part that does not compile or is over
 * the template limits (the engine's own error, with the parser's message). The compiled parts stay
 * in the instance's cache (by content hash), so the first send with the template does not compile it.
 */
async function checkContent(compiler: TemplateCompiler, content: TemplateContent): Promise<TemplateContent> {
  if (BODIES.every((part) => content[part] === undefined)) {
    const message = 'give htmlBody, textBody or ampBody';
    throw new ValidationError(`a template needs a body: ${message}`, [{ path: 'htmlBody', message }]);
  }
  await compiler.compile(content);
  return content;
}

/** Operations on the stored templates of one sub-account, as the `/subaccount/template` endpoints use them. */
export const templateService = {
  /**
   * Saves a new template as its version 1, active. 403 `TEMPLATE_EXISTS` for a name the sub-account has
   * (any case), 403 `TEMPLATE_LIMIT_REACHED` when it has {@link MAX_TEMPLATES_PER_SUBACCOUNT}.
   */
  async create(
    ctx: TemplatesDeps,
    subAccountId: number,
    name: string,
    content: TemplateContent,
  ): Promise<TemplateRecord> {
    // Checked first, so a duplicate costs one indexed read, not a compilation; the unique index decides races.
    if (await ctx.store.templates.findByName(subAccountId, name)) throw duplicateName(name);
    const [beyond] = await ctx.store.templates.list(subAccountId, {
      limit: 1,
      offset: MAX_TEMPLATES_PER_SUBACCOUNT - 1,
    });
    if (beyond)
      throw new ForbiddenError(
        'TEMPLATE_LIMIT_REACHED',
        `this sub-account has ${MAX_TEMPLATES_PER_SUBACCOUNT} templates, the most it may have: delete one first`,
      );
    const outcome = await ctx.store.templates.create({
      subAccountId,
      name,
      content: await checkContent(ctx.templateCompiler, content),
      created: nowNs(ctx.clock),
    });
    if (!outcome.ok) throw duplicateName(name);
    return outcome.value;
  },

  list(ctx: TemplatesDeps, subAccountId: number, query: ListQuery): Promise<TemplateSummary[]> {
    return ctx.store.templates.list(subAccountId, query);
  },

  async get(ctx: TemplatesDeps, subAccountId: number, id: number | null): Promise<TemplateRecord> {
    const template = id === null ? null : await ctx.store.templates.get(subAccountId, id);
    if (!template) throw notFound(id ?? 'given');
    return template;
  },

  /**
   * Renames and/or saves new content: any part given makes a new version (the active version's
   * other parts carried over), which becomes active; the oldest beyond {@link TEMPLATE_VERSIONS_KEPT} go.
   */
  async update(
    ctx: TemplatesDeps,
    subAccountId: number,
    id: number | null,
    patch: TemplatePatch,
  ): Promise<TemplateRecord> {
    const current = await templateService.get(ctx, subAccountId, id);
    let content: TemplateContent | undefined;
    if (patch.subject !== undefined || BODIES.some((part) => patch[part] !== undefined)) {
      const { templateId: _id, version: _version, created: _created, ...active } = current.active;
      const next: TemplateContent = { ...active, ...(patch.subject !== undefined && { subject: patch.subject }) };
      for (const part of BODIES) {
        const value = patch[part];
        if (value === null) delete next[part];
        else if (value !== undefined) next[part] = value;
      }
      content = await checkContent(ctx.templateCompiler, next);
    }
    const outcome = await ctx.store.templates.update(subAccountId, current.id, {
      ...(patch.name !== undefined && { name: patch.name }),
      ...(content && { content }),
      keepVersions: TEMPLATE_VERSIONS_KEPT,
      updated: nowNs(ctx.clock),
    });
    if (!outcome.ok)
      throw outcome.reason === 'duplicate-name' ? duplicateName(patch.name ?? current.name) : notFound(current.id);
    return outcome.value;
  },

  /** Deletes the template and its versions and answers what it was. Messages sent with it keep their content. */
  async delete(ctx: TemplatesDeps, subAccountId: number, id: number | null): Promise<TemplateRecord> {
    const template = await templateService.get(ctx, subAccountId, id);
    if (!(await ctx.store.templates.delete(subAccountId, template.id))) throw notFound(template.id);
    return template;
  },

  /** The kept versions, oldest first, and which one is active. */
  async versions(
    ctx: TemplatesDeps,
    subAccountId: number,
    id: number | null,
  ): Promise<{ template: TemplateRecord; versions: TemplateVersionSummary[] }> {
    const template = await templateService.get(ctx, subAccountId, id);
    const versions = await ctx.store.templates.listVersions(subAccountId, template.id);
    if (!versions) throw notFound(template.id);
    return { template, versions };
  },

  async version(
    ctx: TemplatesDeps,
    subAccountId: number,
    id: number | null,
    version: number | null,
  ): Promise<{ template: TemplateRecord; version: TemplateVersionRecord }> {
    const template = await templateService.get(ctx, subAccountId, id);
    const found = version === null ? null : await ctx.store.templates.getVersion(subAccountId, template.id, version);
    if (!found) throw versionNotFound(template.id, version ?? 'given');
    return { template, version: found };
  },

  /** Makes a kept version the one sends use (406 `TEMPLATE_VERSION_NOT_FOUND` for one not kept). */
  async activate(
    ctx: TemplatesDeps,
    subAccountId: number,
    id: number | null,
    version: number | null,
  ): Promise<TemplateRecord> {
    const template = await templateService.get(ctx, subAccountId, id);
    const outcome =
      version === null
        ? null
        : await ctx.store.templates.activate(subAccountId, template.id, version, nowNs(ctx.clock));
    if (outcome?.ok) return outcome.value;
    if (outcome?.reason === 'not-found') throw notFound(template.id);
    throw versionNotFound(template.id, version ?? 'given');
  },

  /**
   * The template a send names, by `templateId` or by `template` (its name, any case), in the
   * sending sub-account. 422 `UNKNOWN_TEMPLATE` when there is none: a send's reference is part of
   * its body, not a path id.
   */
  async forSend(ctx: TemplatesDeps, subAccountId: number, reference: TemplateReference): Promise<TemplateRecord> {
    const { template: name, templateId } = reference;
    let found: TemplateRecord | null = null;
    if (templateId !== undefined) {
      const id = parseResourceId(String(templateId));
      found = id === null ? null : await ctx.store.templates.get(subAccountId, id);
    } else if (name !== undefined) {
      found = await ctx.store.templates.findByName(subAccountId, name);
    }
    if (found) return found;
    const [path, what] =
      templateId !== undefined ? ['templateId', `with id ${templateId}`] : ['template', `named "${name}"`];
    const message = `no template ${what} in this sub-account`;
    throw new ValidationError(message, [{ path, message }], 'UNKNOWN_TEMPLATE');
  },
};
