import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import type { ListQuery } from '../model/paging.js';
import { nowNs, type Clock } from '../model/time.js';
import type { MailplaneStore, TpspKind, TpspPatch, TpspRecord, TpspSecurity } from '../store/index.js';
import type { SecretBox } from '../crypto/secrets.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface TpspsDeps {
  readonly store: MailplaneStore;
  readonly secrets: SecretBox;
  readonly clock: Clock;
}

/** Connection defaults filled in per TPSP kind when the caller leaves `host` or `port` out. */
export const TPSP_DEFAULTS: Readonly<Record<TpspKind, { host: string; port: number }>> = {
  0: { host: 'email-smtp.us-east-1.amazonaws.com', port: 587 },
  1: { host: 'smtp.sendgrid.net', port: 587 },
  2: { host: 'smtp.mailgun.org', port: 587 },
  3: { host: '', port: 587 },
  4: { host: 'smtp.postmarkapp.com', port: 587 },
  5: { host: 'smtp-relay.gmail.com', port: 587 },
};

/** Implicit TLS on the submission-over-TLS port, STARTTLS everywhere else. */
export const defaultSecurity = (port: number): TpspSecurity => (port === 465 ? 'tls' : 'starttls');

/** What `POST /account/tpsp` takes. */
export interface CreateTpspInput {
  name: string;
  kind: TpspKind;
  host?: string;
  port?: number;
  security?: TpspSecurity;
  username?: string;
  password?: string;
}

/** What `PUT /account/tpsp/{id}` takes; a missing field keeps its value, `password: ''` removes it. */
export type UpdateTpspInput = Partial<CreateTpspInput>;

const notFound = (id: number | string) => new NotFoundError('TPSP_NOT_FOUND', `no TPSP with id ${id} in this account`);
const duplicateName = (name: string) =>
  new ConflictError('TPSP_NAME_TAKEN', `a TPSP named "${name}" already exists in this account`);

/** Operations on the account's third-party sending providers (`/account/tpsp`). */
export const tpspService = {
  async create(ctx: TpspsDeps, accountId: number, input: CreateTpspInput): Promise<TpspRecord> {
    const defaults = TPSP_DEFAULTS[input.kind];
    const host = input.host ?? defaults.host;
    if (host === '')
      throw new ValidationError('the body is not valid (host: a custom SMTP provider needs a host)', [
        { path: 'host', message: 'required for type 3' },
      ]);
    const port = input.port ?? defaults.port;
    const outcome = await ctx.store.tpsps.create({
      accountId,
      name: input.name,
      kind: input.kind,
      host,
      port,
      security: input.security ?? defaultSecurity(port),
      username: input.username ?? '',
      passwordSealed: input.password ? ctx.secrets.encrypt(input.password) : '',
      created: nowNs(ctx.clock),
    });
    if (!outcome.ok) throw duplicateName(input.name);
    return outcome.value;
  },

  list(ctx: TpspsDeps, accountId: number, query: ListQuery): Promise<TpspRecord[]> {
    return ctx.store.tpsps.list(accountId, query);
  },

  async get(ctx: TpspsDeps, accountId: number, id: number | null): Promise<TpspRecord> {
    const tpsp = id === null ? null : await ctx.store.tpsps.get(accountId, id);
    if (!tpsp) throw notFound(id ?? 'given');
    return tpsp;
  },

  async update(ctx: TpspsDeps, accountId: number, id: number | null, input: UpdateTpspInput): Promise<TpspRecord> {
    if (id === null) throw notFound('given');
    const patch: TpspPatch = {
      name: input.name,
      kind: input.kind,
      host: input.host,
      port: input.port,
      security: input.security,
      username: input.username,
      updated: nowNs(ctx.clock),
    };
    if (input.password !== undefined)
      patch.passwordSealed = input.password === '' ? '' : ctx.secrets.encrypt(input.password);
    const outcome = await ctx.store.tpsps.update(accountId, id, patch);
    if (outcome.ok) return outcome.value;
    throw outcome.reason === 'not-found' ? notFound(id) : duplicateName(input.name ?? '');
  },

  /** Deletes a TPSP that serves no pool; one in a pool is a 403 (remove it from the pools first). */
  async delete(ctx: TpspsDeps, accountId: number, id: number | null): Promise<TpspRecord> {
    if (id === null) throw notFound('given');
    const outcome = await ctx.store.tpsps.delete(accountId, id);
    if (outcome.ok) return outcome.value;
    if (outcome.reason === 'not-found') throw notFound(id);
    throw new ForbiddenError(
      'TPSP_IN_POOL',
      `TPSP ${id} serves an IP pool; remove it from its pools before deleting it`,
    );
  },
};
