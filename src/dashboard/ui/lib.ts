/**
 * What every page shares: the `html` tagged template (htm bound to preact: every interpolated
 * string becomes a text node or an attribute value, never markup), the loader hook, and small
 * components (error notes, copy buttons).
 */
import { createContext, h, type ComponentChildren, type VNode } from 'preact';
import { useCallback, useContext, useEffect, useState } from 'preact/hooks';
import htm from 'htm';
import type { Api, SessionState } from './api.js';

/** Markup of the dashboard's components. */
export const html = htm.bind(h) as (strings: TemplateStringsArray, ...values: unknown[]) => VNode;

/** What pages read: the API client and the session. */
export interface AppState {
  api: Api;
  session: SessionState;
}

/** The app's state, given by the shell to every page. */
export const AppContext = createContext<AppState>(null as unknown as AppState);

/** The app's state in a component. */
export const useApp = (): AppState => useContext(AppContext);

/** The result of {@link useLoad}. */
export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** Loads with `load` on mount and whenever `deps` change; `reload` loads again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: Error) => current && setState({ error: error.message, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** An error message, announced to screen readers. */
export const ErrorNote = ({ message }: { message: string | undefined }) =>
  message ? html`<p class="error" role="alert">${message}</p>` : null;

/** A status line (loading, saved), announced politely. */
export const Status = ({ children }: { children: ComponentChildren }) =>
  html`<p class="status" role="status">${children}</p>`;

/** A button that copies `text` to the clipboard and says so. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      // no clipboard (an insecure context): the value stays selectable next to the button
    }
  };
  return html`<button type="button" class="copy" aria-label=${`Copy ${label}`} onClick=${copy}>
    ${copied ? 'Copied' : 'Copy'}
  </button>`;
}

/**
 * What an empty list says: what is (not) there and the next step, so a page never stays blank.
 * Announced politely, as a status.
 */
export const EmptyState = ({ children }: { children: ComponentChildren }) =>
  html`<p class="empty" role="status">${children}</p>`;

/**
 * A table's own horizontal scroll box: a wide table scrolls inside it on a narrow screen instead of
 * widening the page.
 */
export const TableScroll = ({ children }: { children: ComponentChildren }) =>
  html`<div class="table-scroll">${children}</div>`;

/** A time of epoch milliseconds in the viewer's locale and time zone. */
export const LocalTime = ({ ms }: { ms: number }) =>
  html`<time datetime=${new Date(ms).toISOString()}>${new Date(ms).toLocaleString()}</time>`;

/** A wire time (epoch nanoseconds, possibly rounded by `JSON.parse`) as epoch milliseconds. */
export const msOfNs = (ns: number | string): number => Math.floor(Number(ns) / 1e6);

/** Runs `action` once the person confirms `question` (a destructive change: a block, a removal, a deletion). */
export function confirmed(question: string, action: () => unknown): void {
  if (window.confirm(question)) void action();
}
