/**
 * The browser's calls: the dashboard's session endpoints and the API through the dashboard's
 * same-origin path, with the session's CSRF token on every change.
 */

/** What `GET <mount>/session` answers. */
export interface SessionState {
  signedIn: boolean;
  kind?: 'account' | 'subaccount';
  csrfToken?: string;
}

/** An error answer of the API or the dashboard: its status, code, message and each problem's field. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/** Options of one API call. */
export interface CallOptions {
  query?: URLSearchParams | Record<string, string>;
  body?: unknown;
  /** An account session acting on this sub-account's own paths (`/subaccount/...`). */
  actAs?: number;
}

/** The client of one mounted dashboard. */
export class Api {
  private csrfToken = '';
  /** Called when the session has ended (expired or signed out elsewhere). */
  onSignedOut: () => void = () => undefined;

  constructor(readonly base: string) {}

  private async send(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const init: RequestInit = {
      method,
      credentials: 'same-origin',
      headers: { accept: 'application/json', ...headers },
    };
    if (method !== 'GET') (init.headers as Record<string, string>)['x-csrf-token'] = this.csrfToken;
    if (body !== undefined) {
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(url, init);
  }

  private async json<T>(response: Response): Promise<T> {
    const text = await response.text();
    const parsed = text === '' ? null : (JSON.parse(text) as unknown);
    if (!response.ok) {
      const error = (parsed ?? {}) as { code?: string; message?: string; details?: unknown };
      if (response.status === 401 && error.code === 'NOT_SIGNED_IN') this.onSignedOut();
      throw new ApiError(
        response.status,
        error.code ?? 'ERROR',
        error.message ?? `the request failed (${response.status})`,
        Array.isArray(error.details) ? (error.details as { path: string; message: string }[]) : [],
      );
    }
    return parsed as T;
  }

  /** The current session, if any. */
  async session(): Promise<SessionState> {
    const state = await this.json<SessionState>(await this.send('GET', `${this.base}/session`));
    this.csrfToken = state.csrfToken ?? '';
    return state;
  }

  /** Signs in with an API key; the key goes to the server once and is never kept here. */
  async signIn(apiKey: string): Promise<SessionState> {
    const state = await this.json<SessionState>(await this.send('POST', `${this.base}/session`, { apiKey }));
    this.csrfToken = state.csrfToken ?? '';
    return state;
  }

  /** Ends the session. */
  async signOut(): Promise<void> {
    await this.json(await this.send('DELETE', `${this.base}/session`));
    this.csrfToken = '';
  }

  /** The request of a call to the API route `path`: its URL and the act-as header. */
  private target(path: string, options: CallOptions): { url: string; headers: Record<string, string> } {
    const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
    const headers: Record<string, string> =
      options.actAs !== undefined ? { 'x-dashboard-subaccount': String(options.actAs) } : {};
    return { url: `${this.base}/api/v1${path}${query}`, headers };
  }

  /** Calls the API route `path` (e.g. `/account/stat`) with the session's key. */
  async call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const { url, headers } = this.target(path, options);
    return this.json<T>(await this.send(method, url, options.body, headers));
  }

  /**
   * The bytes a `GET` of the API route `path` answers (a raw message), for the browser to save: a
   * link cannot carry the act-as header. An error answer throws as {@link call}'s do.
   */
  async download(path: string, options: CallOptions = {}): Promise<Blob> {
    const { url, headers } = this.target(path, options);
    const response = await this.send('GET', url, undefined, { ...headers, accept: '*/*' });
    if (!response.ok) await this.json(response);
    return response.blob();
  }
}
