import { failure, success } from '../../store/outcome.js';
import type {
  TemplateContent,
  TemplateRecord,
  TemplateStore,
  TemplateSummary,
  TemplateVersionRecord,
} from '../../store/index.js';
import { contains, page, requireParent, toRecord, type MemoryContext } from './common.js';
import type { TemplateRow, TemplateVersionRow } from './rows.js';
import type { TableRows } from './tables.js';

const versionKey = (templateId: number, version: number) => `${templateId}:${version}`;

const owned = (tables: TableRows, subAccountId: number, id: number): TemplateRow | undefined => {
  const row = tables.templates.get(id);
  return row?.subAccountId === subAccountId ? row : undefined;
};

const byName = (tables: TableRows, subAccountId: number, name: string): TemplateRow | undefined =>
  [...tables.templates.values()].find(
    (t) => t.subAccountId === subAccountId && t.name.toLowerCase() === name.toLowerCase(),
  );

function putVersion(
  tables: TableRows,
  templateId: number,
  version: number,
  content: TemplateContent,
  created: bigint,
): void {
  const row: TemplateVersionRow = {
    key: versionKey(templateId, version),
    templateId,
    version,
    ...structuredClone(content),
    created,
  };
  tables.templateVersions.set(row.key, row);
}

function summary(tables: TableRows, row: TemplateRow): TemplateSummary {
  const { key: _key, ...rest } = row;
  return { ...rest, subject: tables.templateVersions.get(versionKey(row.id, row.activeVersion))!.subject };
}

function record(tables: TableRows, row: TemplateRow): TemplateRecord {
  const active = toRecord(tables.templateVersions.get(versionKey(row.id, row.activeVersion))!) as TemplateVersionRecord;
  return { ...summary(tables, row), active };
}

/** {@link TemplateStore} of the in-memory store. */
export function memoryTemplateStore(ctx: MemoryContext): TemplateStore {
  return {
    create: (input) =>
      ctx.write((tables) => {
        requireParent(tables.subAccounts.has(input.subAccountId), `sub-account ${input.subAccountId}`);
        if (byName(tables, input.subAccountId, input.name)) return failure('duplicate-name');
        const id = ctx.nextId('templates');
        const row: TemplateRow = {
          key: id,
          id,
          subAccountId: input.subAccountId,
          name: input.name,
          activeVersion: 1,
          latestVersion: 1,
          created: input.created,
          updated: input.created,
        };
        tables.templates.set(id, row);
        putVersion(tables, id, 1, input.content, input.created);
        return success(record(tables, row));
      }),

    get: (subAccountId, id) =>
      ctx.read((tables) => {
        const row = owned(tables, subAccountId, id);
        return row ? record(tables, row) : null;
      }),

    findByName: (subAccountId, name) =>
      ctx.read((tables) => {
        const row = byName(tables, subAccountId, name);
        return row ? record(tables, row) : null;
      }),

    list: (subAccountId, query) =>
      ctx.read((tables) => {
        const rows = [...tables.templates.values()].filter(
          (t) => t.subAccountId === subAccountId && contains(t.name, query.search),
        );
        return page(rows, query).map((row) => summary(tables, row));
      }),

    update: (subAccountId, id, update) =>
      ctx.write((tables) => {
        const row = owned(tables, subAccountId, id);
        if (!row) return failure('not-found');
        const holder = update.name === undefined ? undefined : byName(tables, subAccountId, update.name);
        if (holder && holder.id !== id) return failure('duplicate-name');
        const next: TemplateRow = {
          ...row,
          updated: update.updated,
          ...(update.name !== undefined && { name: update.name }),
        };
        if (update.content) {
          next.latestVersion = row.latestVersion + 1;
          next.activeVersion = next.latestVersion;
          putVersion(tables, id, next.latestVersion, update.content, update.updated);
          for (const v of [...tables.templateVersions.values()]) {
            if (v.templateId === id && v.version <= next.latestVersion - update.keepVersions)
              tables.templateVersions.delete(v.key);
          }
        }
        tables.templates.set(id, next);
        return success(record(tables, next));
      }),

    listVersions: (subAccountId, id) =>
      ctx.read((tables) => {
        if (!owned(tables, subAccountId, id)) return null;
        return [...tables.templateVersions.values()]
          .filter((v) => v.templateId === id)
          .sort((a, b) => a.version - b.version)
          .map((v) => ({ version: v.version, subject: v.subject, created: v.created }));
      }),

    getVersion: (subAccountId, id, version) =>
      ctx.read((tables) => {
        const row = owned(tables, subAccountId, id) && tables.templateVersions.get(versionKey(id, version));
        return row ? (toRecord(row) as TemplateVersionRecord) : null;
      }),

    activate: (subAccountId, id, version, updated) =>
      ctx.write((tables) => {
        const row = owned(tables, subAccountId, id);
        if (!row) return failure('not-found');
        if (!tables.templateVersions.has(versionKey(id, version))) return failure('no-such-version');
        const next: TemplateRow = { ...row, activeVersion: version, updated };
        tables.templates.set(id, next);
        return success(record(tables, next));
      }),

    delete: (subAccountId, id) =>
      ctx.write((tables) => {
        if (!owned(tables, subAccountId, id)) return false;
        tables.templates.delete(id);
        for (const v of [...tables.templateVersions.values()])
          if (v.templateId === id) tables.templateVersions.delete(v.key);
        return true;
      }),
  };
}
