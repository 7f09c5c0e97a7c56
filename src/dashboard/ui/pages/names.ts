/**
 * Names instead of ids: the account's sub-accounts, IP pools and IPs read once per page, and links
 * that show a resource by its name and lead to the page that lists it; a blocked sub-account is
 * marked as blocked wherever it is named. A sub-account session cannot read the account's lists: it
 * gets no names, and pages leave those rows out.
 */
import { html, useApp, useLoad } from '../lib.js';

/** What the lists answer, reduced to what a name needs. */
interface Named {
  id: number;
  name: string;
}

/** The account's names by id; empty maps for a sub-account session or while loading. */
export interface Names {
  /** Whether the names can be read (an account session). */
  known: boolean;
  subAccounts: ReadonlyMap<number, string>;
  /** The blocked sub-accounts' reasons by id (an empty reason when none was given). */
  blocked: ReadonlyMap<number, string>;
  pools: ReadonlyMap<number, string>;
  ips: ReadonlyMap<number, string>;
  /** Reads the lists again (after a change that names show, such as an unblock). */
  reload: () => void;
}

const none: Names = {
  known: false,
  subAccounts: new Map(),
  blocked: new Map(),
  pools: new Map(),
  ips: new Map(),
  reload: () => undefined,
};

/** Reads the account's sub-accounts, pools and IPs (up to 100 of each) for their names. */
export function useNames(): Names {
  const { api, session } = useApp();
  const isAccount = session.kind === 'account';
  const loaded = useLoad(async (): Promise<Omit<Names, 'reload'>> => {
    if (!isAccount) return none;
    const list = <T>(path: string) => api.call<T[]>('GET', path, { query: { limit: '100' } });
    const [subs, pools, ips] = await Promise.all([
      list<Named & { blocked: boolean; block_reason: string }>('/account/subaccount'),
      list<Named>('/account/ippool'),
      list<{ id: number; publicIp: string }>('/account/ip'),
    ]);
    return {
      known: true,
      subAccounts: new Map(subs.map((s) => [s.id, s.name])),
      blocked: new Map(subs.filter((s) => s.blocked).map((s) => [s.id, s.block_reason])),
      pools: new Map(pools.map((p) => [p.id, p.name])),
      ips: new Map(ips.map((ip) => [ip.id, ip.publicIp])),
    };
  }, [isAccount]);
  return { ...(loaded.data ?? { ...none, known: isAccount }), reload: loaded.reload };
}

/**
 * The mark of a blocked sub-account: a badge whose reason shows on hover and is read out after it
 * (`undefined`: not blocked, nothing shown).
 */
export const BlockedBadge = ({ reason }: { reason: string | undefined }) =>
  reason === undefined
    ? null
    : html`<span class="badge status-hard_bounced" title=${reason || 'blocked'}>blocked</span>${
          reason && html`<span class="visually-hidden">: ${reason}</span>`
        }`;

/** A sub-account's name in a picker's option, where no badge fits: `Shop (blocked)`. */
export const subAccountOptionText = (s: { name: string; blocked?: boolean }): string =>
  s.blocked ? `${s.name} (blocked)` : s.name;

/** A sub-account by its name, linked to its row on the Sub-accounts page; marked when it is blocked. */
export const SubAccountLink = ({ id, names }: { id: number; names: Names }) =>
  html`<a href=${`#/subaccounts/${id}`}>${names.subAccounts.get(id) ?? `Sub-account ${id}`}</a>${
      names.blocked.has(id) && html` <${BlockedBadge} reason=${names.blocked.get(id)} />`
    }`;

/** A pool by its name (`fallback`, the name the send gave, until the list is read), linked to its row. */
export const PoolLink = ({ id, names, fallback }: { id: number; names: Names; fallback?: string }) =>
  html`<a href=${`#/ips/pool-${id}`}>${names.pools.get(id) ?? fallback ?? `Pool ${id}`}</a>`;

/** An IP by its address, linked to its row on the IPs and pools page. */
export const IpLink = ({ id, names }: { id: number; names: Names }) =>
  html`<a href=${`#/ips/ip-${id}`}>${names.ips.get(id) ?? `IP ${id}`}</a>`;
