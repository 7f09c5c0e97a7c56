/**
 * The entity an alert rule or an incident is about, by its name (docs/reputation.md, "Entity
 * types"): the account, a sub-account (marked when blocked), an IP, an IP pool, or a sending domain.
 * Domains belong to sub-accounts, so they are read per sub-account, and only once a page shows one.
 */
import { inBatches } from '../format.js';
import { html, useApp, useLoad } from '../lib.js';
import { IpLink, PoolLink, SubAccountLink, type Names } from './names.js';

/** The account's sending domains by id: the name and its sub-account's name. */
export type DomainNames = ReadonlyMap<number, { name: string; subAccountId: number }>;

/** How many sub-accounts' domain lists are read at once: each is a request of the key's rate limit. */
const DOMAIN_READS_AT_ONCE = 4;

/** Reads the domains of every sub-account named in `names`, once `wanted` (a page shows a domain). */
export function useDomainNames(names: Names, wanted: boolean): DomainNames {
  const { api } = useApp();
  const subIds = [...names.subAccounts.keys()];
  const ready = wanted && names.known && subIds.length > 0;
  const loaded = useLoad(async (): Promise<DomainNames> => {
    if (!ready) return new Map();
    const lists = await inBatches(subIds, DOMAIN_READS_AT_ONCE, (id) =>
      api.call<{ id: number; name: string }[]>('GET', '/subaccount/domain', { query: { limit: '100' }, actAs: id }),
    );
    return new Map(lists.flatMap((list, i) => list.map((d) => [d.id, { name: d.name, subAccountId: subIds[i]! }])));
  }, [ready, subIds.join(',')]);
  return loaded.data ?? new Map();
}

/** The choices of an entity type's select: id and name, in the order of the account's lists. */
export function entityChoices(type: string, names: Names, domains: DomainNames): [number, string][] {
  if (type === 'subAccount') return [...names.subAccounts];
  if (type === 'ip') return [...names.ips];
  if (type === 'ipPool') return [...names.pools];
  if (type === 'domain') {
    return [...domains].map(([id, d]) => [id, `${d.name} (${names.subAccounts.get(d.subAccountId) ?? 'sub-account'})`]);
  }
  return [];
}

interface EntityProps {
  type: string;
  value: string;
  names: Names;
  domains: DomainNames;
}

/** An entity by its name, linked to the page that lists it where there is one. */
export function EntityName({ type, value, names, domains }: EntityProps) {
  const id = Number(value);
  if (type === 'account') return html`The account`;
  if (type === 'subAccount') return html`<${SubAccountLink} id=${id} names=${names} />`;
  if (type === 'ip') return html`<${IpLink} id=${id} names=${names} />`;
  if (type === 'ipPool') return html`<${PoolLink} id=${id} names=${names} />`;
  if (type === 'domain') {
    const domain = domains.get(id);
    return domain
      ? html`<a href=${`#/domains/${domain.subAccountId}`}>${domain.name}</a>`
      : html`${`Sending domain ${value}`}`;
  }
  return html`${`${type} ${value}`}`;
}
