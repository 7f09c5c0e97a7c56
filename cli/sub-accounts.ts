/**
 * Which sub-account a client command acts as. Domains and sends belong to sub-accounts, but the
 * operator usually holds the account key only: with it the CLI lists the sub-accounts (whose keys
 * the account key may read) and picks the one that owns the domain in question.
 */
import { accountKeyOf, findDomain, listSubAccounts, type Api, type DomainItem } from './api.js';
import { CommandFailure, stringFlag, type ParsedArgs } from './command.js';
import type { ServerAccess } from './environment.js';

/** The flags that choose a sub-account. */
export const SUB_ACCOUNT_FLAGS = {
  subaccount: { type: 'string' },
  'subaccount-key': { type: 'string' },
} as const;

/** The `--help` lines of {@link SUB_ACCOUNT_FLAGS}. */
export const SUB_ACCOUNT_FLAGS_HELP = `  --subaccount ID|NAME  look in this sub-account only (default: every sub-account of the account key)
  --subaccount-key KEY  act as the sub-account of this key (no account key needed)`;

/** A sub-account the command may act as: its key and how to name it in output. */
export interface SubAccountChoice {
  key: string;
  label: string;
}

/**
 * The sub-accounts to look in: the one of `--subaccount-key`; else, with the account key, the one
 * `--subaccount` names (by id or name) or every one, oldest first.
 */
export async function candidateSubAccounts(
  api: Api,
  values: ParsedArgs['values'],
  access: ServerAccess,
): Promise<SubAccountChoice[]> {
  const ownKey = stringFlag(values, 'subaccount-key');
  if (ownKey !== undefined) return [{ key: ownKey, label: 'the sub-account of --subaccount-key' }];
  const all = await listSubAccounts(api, accountKeyOf(access));
  const wanted = stringFlag(values, 'subaccount');
  const chosen =
    wanted === undefined ? all : all.filter((sub) => `${sub.id}` === wanted.trim() || sub.name === wanted.trim());
  if (chosen.length === 0) throw new CommandFailure(`no sub-account has the id or name ${JSON.stringify(wanted)}`);
  return chosen
    .sort((a, b) => a.id - b.id)
    .map((sub) => ({ key: sub.apiKey, label: `sub-account ${sub.id} ${JSON.stringify(sub.name)}` }));
}

/** A domain and the sub-account that owns it. */
export interface OwnedDomain {
  owner: SubAccountChoice;
  domain: DomainItem;
}

/** The first of `candidates` that has the domain `name` (normalised), or `undefined`. */
export async function locateDomain(
  api: Api,
  candidates: SubAccountChoice[],
  name: string,
): Promise<OwnedDomain | undefined> {
  for (const owner of candidates) {
    const domain = await findDomain(api, owner.key, name);
    if (domain) return { owner, domain };
  }
  return undefined;
}
