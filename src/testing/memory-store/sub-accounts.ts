import { failure, success } from '../../store/outcome.js';
import type { SmtpAuthRecord, SubAccountRecord, SubAccountStore } from '../../store/index.js';
import { byId, contains, page, requireParent, toRecord, uniqueViolation, type MemoryContext } from './common.js';
import type { SubAccountRow } from './rows.js';
import type { TableRows } from './tables.js';

const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Another sub-account of the account with that name (case-insensitively), if any. */
const nameTaken = (tables: TableRows, accountId: number, name: string, exceptId?: number) =>
  [...tables.subAccounts.values()].some(
    (s) => s.accountId === accountId && s.id !== exceptId && sameName(s.name, name),
  );

const owned = (tables: TableRows, accountId: number, id: number): SubAccountRow | undefined => {
  const row = tables.subAccounts.get(id);
  return row?.accountId === accountId ? row : undefined;
};

const asSubAccount = (row: SubAccountRow): SubAccountRecord => toRecord(row);

/** {@link SubAccountStore} of the in-memory store. */
export function memorySubAccountStore(ctx: MemoryContext): SubAccountStore {
  return {
    create: (input) =>
      ctx.write((tables) => {
        requireParent(tables.accounts.has(input.accountId), `account ${input.accountId}`);
        // As the Kysely store's ON CONFLICT DO NOTHING: any clash of the sub-account row (its name,
        // or its key hash, unique store-wide) answers duplicate-name.
        const keyTaken = [...tables.subAccounts.values()].some((s) => s.apiKeyHash === input.apiKeyHash);
        if (keyTaken || nameTaken(tables, input.accountId, input.name)) return failure('duplicate-name');
        if ([...tables.smtpAuths.values()].some((a) => a.username === input.smtpAuth.username))
          uniqueViolation('SMTP username');
        const id = ctx.nextId('subAccounts');
        const row: SubAccountRow = {
          key: id,
          id,
          accountId: input.accountId,
          name: input.name,
          companyName: input.companyName,
          type: input.type,
          isPlus: false,
          blocked: false,
          blockedAt: 0n,
          blockReason: '',
          hbExempt: false,
          generateWeeklyReport: false,
          apiKeyHash: input.apiKeyHash,
          apiKeySealed: input.apiKeySealed,
          defaultIpPoolId: null,
          created: input.created,
          updated: input.created,
          retentionDays: null,
        };
        tables.subAccounts.set(id, row);
        const authId = ctx.nextId('smtpAuths');
        tables.smtpAuths.set(authId, {
          key: authId,
          id: authId,
          subAccountId: id,
          ...structuredClone(input.smtpAuth),
          created: input.created,
          updated: input.created,
        });
        return success(asSubAccount(row));
      }),

    get: (accountId, id) =>
      ctx.read((tables) => {
        const row = owned(tables, accountId, id);
        return row ? asSubAccount(row) : null;
      }),

    list: (accountId, query) =>
      ctx.read((tables) => {
        const rows = [...tables.subAccounts.values()].filter(
          (s) => s.accountId === accountId && contains(s.name, query.search),
        );
        return page(rows, query).map(asSubAccount);
      }),

    getDefault: (accountId) =>
      ctx.read((tables) => {
        const row = byId(tables.subAccounts.values()).find((s) => s.accountId === accountId && s.type === 0);
        return row ? asSubAccount(row) : null;
      }),

    update: (accountId, id, patch) =>
      ctx.write((tables) => {
        const row = owned(tables, accountId, id);
        if (!row) return failure('not-found');
        if (patch.name !== undefined && nameTaken(tables, accountId, patch.name, id)) return failure('duplicate-name');
        const next: SubAccountRow = { ...row, updated: patch.updated };
        if (patch.name !== undefined) next.name = patch.name;
        if (patch.blocked !== undefined) next.blocked = patch.blocked;
        if (patch.blockedAt !== undefined) next.blockedAt = patch.blockedAt;
        if (patch.blockReason !== undefined) next.blockReason = patch.blockReason;
        if (patch.defaultIpPoolId !== undefined) next.defaultIpPoolId = patch.defaultIpPoolId;
        if (patch.retentionDays !== undefined) next.retentionDays = patch.retentionDays;
        tables.subAccounts.set(id, next);
        return success(asSubAccount(next));
      }),

    delete: (accountId, id) =>
      ctx.write((tables) => {
        if (!owned(tables, accountId, id)) return false;
        tables.subAccounts.delete(id);
        // What the Kysely schema's cascades remove with it: credentials, domains and suppressions.
        for (const auth of [...tables.smtpAuths.values()])
          if (auth.subAccountId === id) tables.smtpAuths.delete(auth.key);
        for (const domain of [...tables.domains.values()])
          if (domain.subAccountId === id) tables.domains.delete(domain.key);
        for (const s of [...tables.suppressions.values()]) if (s.subAccountId === id) tables.suppressions.delete(s.key);
        for (const t of [...tables.templates.values()]) {
          if (t.subAccountId !== id) continue;
          tables.templates.delete(t.key);
          for (const v of [...tables.templateVersions.values()])
            if (v.templateId === t.id) tables.templateVersions.delete(v.key);
        }
        for (const table of [
          tables.inboundDomains,
          tables.inboundRoutes,
          tables.inboundMessages,
          tables.inboundPostAttempts,
        ] as const)
          for (const row of [...table.values()]) if (row.subAccountId === id) table.delete(row.key as never);
        return true;
      }),

    findByApiKeyHash: (apiKeyHash) =>
      ctx.read((tables) => {
        const row = [...tables.subAccounts.values()].find((s) => s.apiKeyHash === apiKeyHash);
        return row ? asSubAccount(row) : null;
      }),

    listSmtpAuths: (subAccountIds) =>
      ctx.read((tables) => {
        const wanted = new Set(subAccountIds);
        return byId([...tables.smtpAuths.values()].filter((a) => wanted.has(a.subAccountId))).map((a): SmtpAuthRecord =>
          toRecord(a),
        );
      }),

    findBySmtpUsername: (username) =>
      ctx.read((tables) => {
        const auth = [...tables.smtpAuths.values()].find((a) => a.username === username);
        const subAccount = auth && tables.subAccounts.get(auth.subAccountId);
        return auth && subAccount ? { subAccount: asSubAccount(subAccount), smtpAuth: toRecord(auth) } : null;
      }),

    listRetentionOverrides: () =>
      ctx.read((tables) =>
        byId(tables.subAccounts.values()).flatMap((s) =>
          s.retentionDays === null
            ? []
            : [{ accountId: s.accountId, subAccountId: s.id, retentionDays: s.retentionDays }],
        ),
      ),
  };
}
