/**
 * The sub-account a page about one sub-account's resources shows: for an account session, the one
 * chosen in the picker (in the hash route, `#/<page>/<id>`), whose routes the dashboard calls as
 * that sub-account; for a sub-account session, its own. Without a choice in the address the page
 * starts where the mail is (`startSubAccount` in format.ts): the sub-account this browser last
 * chose, else the one with the most recent message, else the newest. The choice is remembered in
 * `localStorage` (an id, nothing secret), per browser.
 */
import { useEffect } from 'preact/hooks';
import { startSubAccount } from '../format.js';
import { EmptyState, html, useApp, useLoad, type AppState } from '../lib.js';
import { subAccountOptionText } from './names.js';
import type { SubAccount } from './sub-accounts.js';

/** What {@link useActAs} gives a page. */
export interface ActAs {
  /** The id to pass as `actAs` (undefined for a sub-account session). */
  actAs: number | undefined;
  /** Whether the page can call its routes (a sub-account is known). */
  ready: boolean;
  /** The picker (or nothing, for a sub-account session). */
  picker: unknown;
  /** The chosen sub-account's name, for the page's sentences (undefined for a sub-account session). */
  name: string | undefined;
}

/** Where the browser keeps the last chosen sub-account. */
const REMEMBERED_KEY = 'mailplane.dashboard.subAccount';

/** The remembered sub-account's id; none when storage is empty or unavailable (private modes may refuse it). */
function remembered(): number | undefined {
  try {
    const value = Number(window.localStorage.getItem(REMEMBERED_KEY) ?? NaN);
    return Number.isInteger(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function remember(id: number): void {
  try {
    window.localStorage.setItem(REMEMBERED_KEY, String(id));
  } catch {
    // storage refused: the page still works, it just starts on the default next time
  }
}

/** The account's sub-accounts and the one to start on. */
async function loadChoice(api: AppState['api']): Promise<{ subs: SubAccount[]; start: number | undefined }> {
  const subs = await api.call<SubAccount[]>('GET', '/account/subaccount', { query: { limit: '100' } });
  const kept = remembered();
  if (kept !== undefined && subs.some((s) => s.id === kept)) return { subs, start: kept };
  const latest = await api.call<{ items: { subAccountID: number }[] }>('GET', '/account/message', {
    query: { limit: '1' },
  });
  return { subs, start: startSubAccount(subs, undefined, latest.items[0]?.subAccountID) };
}

/** The chosen sub-account of `page`, from the route's `arg`. */
export function useActAs(page: string, arg: string | undefined): ActAs {
  const { api, session } = useApp();
  const isAccount = session.kind === 'account';
  const choice = useLoad(
    () => (isAccount ? loadChoice(api) : Promise.resolve({ subs: [], start: undefined })),
    [isAccount],
  );
  const chosen = arg !== undefined && /^\d+$/.test(arg) ? Number(arg) : undefined;
  // A choice in the address (the picker, a "Domains of …" link) is the one to start on next time.
  useEffect(() => {
    if (isAccount && chosen !== undefined) remember(chosen);
  }, [isAccount, chosen]);
  const subs = choice.data?.subs ?? [];
  const actAs = isAccount ? (chosen ?? choice.data?.start ?? NaN) : undefined;
  const ready = !isAccount || Number.isInteger(actAs);
  const picker = isAccount
    ? html`<label class="picker"
          >Sub-account
          <select
            value=${String(actAs)}
            onChange=${(e: Event) => (location.hash = `#/${page}/${(e.target as HTMLSelectElement).value}`)}
          >
            ${subs.map((s) => html`<option value=${String(s.id)}>${subAccountOptionText(s)}</option>`)}
          </select>
        </label>
        ${
          choice.data &&
          subs.length === 0 &&
          html`<${EmptyState}>No sub-accounts yet: create one on the <a href="#/subaccounts">Sub-accounts</a> page first.</${EmptyState}>`
        }`
    : null;
  return { actAs, ready, picker, name: subs.find((s) => s.id === actAs)?.name };
}
