/**
 * The sub-account a page about one sub-account's resources shows: for an account session, the one
 * chosen in the picker (in the hash route, `#/<page>/<id>`; the first one by default), whose routes
 * the dashboard calls as that sub-account; for a sub-account session, its own.
 */
import { html, Status, useApp, useLoad } from '../lib.js';
import type { SubAccount } from './sub-accounts.js';

/** What {@link useActAs} gives a page. */
export interface ActAs {
  /** The id to pass as `actAs` (undefined for a sub-account session). */
  actAs: number | undefined;
  /** Whether the page can call its routes (a sub-account is known). */
  ready: boolean;
  /** The picker (or nothing, for a sub-account session). */
  picker: unknown;
}

/** The chosen sub-account of `page`, from the route's `arg`. */
export function useActAs(page: string, arg: string | undefined): ActAs {
  const { api, session } = useApp();
  const isAccount = session.kind === 'account';
  const subs = useLoad(
    () =>
      isAccount
        ? api.call<SubAccount[]>('GET', '/account/subaccount', { query: { limit: '100' } })
        : Promise.resolve([]),
    [],
  );
  const actAs = isAccount ? Number(arg ?? subs.data?.[0]?.id ?? NaN) : undefined;
  const ready = !isAccount || Number.isInteger(actAs);
  const picker = isAccount
    ? html`<label
          >Sub-account
          <select
            value=${String(actAs)}
            onChange=${(e: Event) => (location.hash = `#/${page}/${(e.target as HTMLSelectElement).value}`)}
          >
            ${(subs.data ?? []).map((s) => html`<option value=${String(s.id)}>${s.name}</option>`)}
          </select>
        </label>
        ${subs.data?.length === 0 && html`<${Status}>Create a sub-account first.</${Status}>`}`
    : null;
  return { actAs, ready, picker };
}
