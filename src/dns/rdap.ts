import { isValidName, normalizeName } from './names.js';

/**
 * Finds when a domain was registered, as `YYYY-MM-DD`, or `''` when that cannot be learned.
 * Pluggable, so a deployment can use its own registration-data source.
 */
export type RegistrationDateLookup = (domain: string) => Promise<string>;

/** Settings of {@link createRdapLookup}. */
export interface RdapLookupOptions {
  /** RDAP service base; `GET <baseUrl>/domain/<name>` is asked. Default `https://rdap.org` (redirects to the registry). */
  baseUrl?: string;
  /** Ceiling on the whole lookup, redirects and parent-domain attempts included. Default 5000 ms. */
  timeoutMs?: number;
  /** Largest response body read. Default 256 KiB. */
  maxBytes?: number;
  /** The fetch implementation. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Told why a lookup gave no date (for logs); never given secrets, only the domain and a message. */
  onError?: (domain: string, message: string) => void;
}

class RdapError extends Error {
  constructor(
    message: string,
    readonly notFound = false,
  ) {
    super(message);
  }
}

async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new RdapError(`the response is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads `events[eventAction=registration].eventDate` of an RDAP domain object as `YYYY-MM-DD` (UTC). */
export function registrationDateFromRdap(body: unknown): string {
  if (typeof body !== 'object' || body === null) return '';
  const events = (body as { events?: unknown }).events;
  if (!Array.isArray(events)) return '';
  for (const event of events) {
    if (typeof event !== 'object' || event === null) continue;
    const { eventAction, eventDate } = event as { eventAction?: unknown; eventDate?: unknown };
    if (
      typeof eventAction !== 'string' ||
      eventAction.toLowerCase() !== 'registration' ||
      typeof eventDate !== 'string'
    )
      continue;
    const time = Date.parse(eventDate);
    if (Number.isNaN(time)) continue;
    const date = new Date(time).toISOString();
    // A year outside 0000-9999 would not be YYYY-MM-DD.
    if (/^\d{4}-\d{2}-\d{2}T/.test(date)) return date.slice(0, 10);
  }
  return '';
}

/**
 * Creates a registration-date lookup over RDAP (RFC 9082/9083). A subdomain is not in any
 * registry, so on 404 the parent domains are asked, down to two labels. Every failure (network,
 * timeout, 404, garbage) gives `''`: the date is informational and never blocks verification.
 *
 * @example
 * const registeredDate = createRdapLookup({ baseUrl: 'https://rdap.org', timeoutMs: 3000 });
 * await registeredDate('example.com'); // '1995-08-14'
 */
export function createRdapLookup(options: RdapLookupOptions = {}): RegistrationDateLookup {
  const baseUrl = (options.baseUrl ?? 'https://rdap.org').replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxBytes = options.maxBytes ?? 256 * 1024;
  const fetchImpl = options.fetch ?? fetch;

  async function ask(name: string, signal: AbortSignal): Promise<string> {
    const response = await fetchImpl(`${baseUrl}/domain/${encodeURIComponent(name)}`, {
      headers: { accept: 'application/rdap+json, application/json' },
      signal,
    });
    if (response.status === 404) {
      await response.body?.cancel();
      throw new RdapError(`no RDAP record for ${name}`, true);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new RdapError(`RDAP answered ${response.status} for ${name}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(await readLimited(response, maxBytes));
    } catch (error) {
      if (error instanceof RdapError) throw error;
      throw new RdapError(`the RDAP answer for ${name} is not JSON`);
    }
    const date = registrationDateFromRdap(body);
    if (date === '') throw new RdapError(`the RDAP answer for ${name} has no registration date`);
    return date;
  }

  return async (domain) => {
    const name = normalizeName(domain);
    if (!isValidName(name) || !name.includes('.')) {
      options.onError?.(domain, 'not a domain name');
      return '';
    }
    const labels = name.split('.');
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      for (let start = 0; start <= labels.length - 2 && start < 3; start++) {
        try {
          return await ask(labels.slice(start).join('.'), signal);
        } catch (error) {
          if (!(error instanceof RdapError && error.notFound)) throw error;
          if (start === labels.length - 2 || start === 2) throw error;
        }
      }
    } catch (error) {
      const message = signal.aborted
        ? `no RDAP answer within ${timeoutMs} ms`
        : error instanceof Error
          ? error.message
          : String(error);
      options.onError?.(domain, message);
    }
    return '';
  };
}
