/**
 * The dashboard's browser entry: sign-in, the navigation shell and the hash router. Bundled by
 * src/dashboard/build-assets.ts; loaded by the page the handler serves.
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import './styles.css';
import { Api, type SessionState } from './api.js';
import { parseRoute } from './format.js';
import { AppContext, ErrorNote, html } from './lib.js';
import { Activity, MessagePage } from './pages/activity.js';
import { Domains } from './pages/domains.js';
import { Overview } from './pages/overview.js';
import { SubAccounts } from './pages/sub-accounts.js';
import { Suppressions } from './pages/suppressions.js';
import { SandboxInbox } from './pages/sandbox.js';
import { Webhooks } from './pages/webhooks.js';
import { IpsAndPools } from './pages/ips.js';
import { Shaping } from './pages/shaping.js';
import { Alerts } from './pages/alerts.js';
import { Incidents } from './pages/incidents.js';
import { Received } from './pages/received.js';
import { ReceivedMessagePage } from './pages/received-message.js';

const root = document.getElementById('app')!;
const api = new Api(root.dataset.base ?? '');

function SignIn({ onSignedIn }: { onSignedIn: (s: SessionState) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const state = await api.signIn(key.trim());
      setKey('');
      onSignedIn(state);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return html`<main class="sign-in">
    <h1>mailplane</h1>
    <form onSubmit=${submit} aria-label="Sign in">
      <label for="api-key">Account or sub-account API key</label>
      <input
        id="api-key"
        type="password"
        autocomplete="off"
        required
        value=${key}
        onInput=${(e: Event) => setKey((e.target as HTMLInputElement).value)}
      />
      <button type="submit">Sign in</button>
      <${ErrorNote} message=${error} />
      <p class="hint">The key stays on the server for this session; the browser keeps only a session cookie.</p>
    </form>
  </main>`;
}

const ACCOUNT_PAGES = [
  ['overview', 'Overview'],
  ['activity', 'Activity'],
  ['received', 'Received'],
  ['subaccounts', 'Sub-accounts'],
  ['domains', 'Domains'],
  ['suppressions', 'Suppressions'],
  ['ips', 'IPs and pools'],
  ['shaping', 'Shaping'],
  ['alerts', 'Alerts'],
  ['incidents', 'Incidents'],
  ['webhooks', 'Webhooks'],
  ['sandbox', 'Sandbox inbox'],
] as const;
const SUBACCOUNT_PAGES = [
  ['overview', 'Overview'],
  ['activity', 'Activity'],
  ['received', 'Received'],
  ['domains', 'Domains'],
  ['suppressions', 'Suppressions'],
] as const;

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    window.addEventListener('hashchange', changed);
    // The address may have changed between the first render and this effect (effects run after a
    // paint): that hashchange came before the listener, so read the address once more now.
    changed();
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return hash;
}

function Page({ page, arg }: { page: string; arg: string | undefined }) {
  if (page === 'activity') return html`<${Activity} />`;
  if (page === 'message' && arg) return html`<${MessagePage} id=${arg} />`;
  if (page === 'received') return arg ? html`<${ReceivedMessagePage} id=${arg} />` : html`<${Received} />`;
  if (page === 'subaccounts') return html`<${SubAccounts} arg=${arg} />`;
  if (page === 'domains') return html`<${Domains} subAccountId=${arg} />`;
  if (page === 'suppressions') return html`<${Suppressions} subAccountId=${arg} />`;
  if (page === 'sandbox') return html`<${SandboxInbox} arg=${arg} />`;
  if (page === 'webhooks') return html`<${Webhooks} />`;
  if (page === 'ips') return html`<${IpsAndPools} arg=${arg} />`;
  if (page === 'shaping') return html`<${Shaping} />`;
  if (page === 'alerts') return html`<${Alerts} />`;
  if (page === 'incidents') return html`<${Incidents} arg=${arg} />`;
  return html`<${Overview} />`;
}

function Shell({ session, onSignedOut }: { session: SessionState; onSignedOut: () => void }) {
  const { page, arg } = parseRoute(useHash());
  const main = useRef<HTMLElement>(null);
  // Focus moves to the new page's content, so keyboard and screen-reader users land on it.
  useEffect(() => main.current?.focus(), [page, arg]);
  const signOut = async () => {
    await api.signOut().catch(() => undefined);
    onSignedOut();
  };
  const pages = session.kind === 'account' ? ACCOUNT_PAGES : SUBACCOUNT_PAGES;
  // An address left from an account session (sign out, then in with a sub-account key) may name an
  // account-only page: the sub-account gets its overview instead of that page's refused calls.
  const shown = page === 'message' || pages.some(([id]) => id === page) ? page : 'overview';
  const current = shown === 'message' ? 'activity' : shown;
  return html`<${AppContext.Provider} value=${{ api, session }}>
    <a class="skip" href="#main" onClick=${(e: Event) => (e.preventDefault(), main.current?.focus())}>Skip to content</a>
    <header class="top">
      <span class="brand">mailplane</span>
      <nav aria-label="Dashboard">
        <ul>
          ${pages.map(
            ([id, label]) =>
              // The link of the page already shown changes no address, so no effect moves focus: this does.
              html`<li>
                <a
                  href=${`#/${id}`}
                  aria-current=${current === id ? 'page' : undefined}
                  onClick=${() => current === id && main.current?.focus()}
                  >${label}</a
                >
              </li>`,
          )}
        </ul>
      </nav>
      <span class="who">${session.kind === 'account' ? 'Account' : 'Sub-account'}</span>
      <button type="button" onClick=${signOut}>Sign out</button>
    </header>
    <main id="main" ref=${main} tabindex="-1"><${Page} page=${shown} arg=${arg} /></main>
  </${AppContext.Provider}>`;
}

function App() {
  const [session, setSession] = useState<SessionState | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    api.onSignedOut = () => setSession({ signedIn: false });
    api.session().then(setSession, (failure: Error) => setError(failure.message));
  }, []);
  if (error) return html`<${ErrorNote} message=${error} />`;
  if (!session) return html`<p role="status">Loading…</p>`;
  if (!session.signedIn) return html`<${SignIn} onSignedIn=${setSession} />`;
  return html`<${Shell} session=${session} onSignedOut=${() => setSession({ signedIn: false })} />`;
}

render(html`<${App} />`, root);
