/**
 * The dashboard's browser logic that needs no DOM: dates of a range, labels of event types and
 * statuses. Unit-tested in test/unit/dashboard-format.test.ts (the overview's statistics: stats.ts).
 */
import { revealInvisible } from '../../model/invisible.js';

/**
 * Text a sender or recipient chose (a subject, an address, a header), as the dashboard shows it:
 * invisible and text-direction characters written out (`\u202E`), so that a display name or
 * subject cannot reverse or hide what is shown after it. The API and the delivered mail keep the
 * text as it was given; only what people read here changes.
 */
export const shownText = (text: string): string => revealInvisible(text);

/** A UTC day `YYYY-MM-DD` of epoch milliseconds. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The first and last day (inclusive) of the `days` UTC days ending with the day of `nowMs`. */
export function lastDays(nowMs: number, days: number): { from: string; to: string } {
  return { from: utcDay(nowMs - (days - 1) * 86_400_000), to: utcDay(nowMs) };
}

/** Names of the event types (`Event.type`). */
const EVENT_NAMES = [
  'Processed',
  'Dropped',
  'Delivered',
  'Soft bounce',
  'Hard bounce',
  'Opened',
  'Clicked',
  'Unsubscribed',
  'Spam complaint',
];

/** The name of an event type number, or `Event <n>` for one this dashboard does not know. */
export const eventName = (type: number): string => EVENT_NAMES[type] ?? `Event ${type}`;

/** Whether an event type is bad news (a drop, a bounce, a complaint), for its badge. */
export const eventIsProblem = (type: number): boolean => type === 1 || type === 3 || type === 4 || type === 8;

/** A wire time (epoch nanoseconds, possibly past 2^53 and so rounded by `JSON.parse`) as UTC text. */
export function formatNs(ns: number | string | null | undefined): string {
  if (ns === null || ns === undefined || ns === '' || Number(ns) === 0) return '—';
  const ms = Math.floor(Number(ns) / 1e6);
  return Number.isFinite(ms) ? `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC` : '—';
}

/** The activity search's query string: empty fields left out, days as `YYYY-MM-DD`. */
export function activityQuery(filters: Record<string, string>, cursor?: string | null): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value.trim() !== '') query.set(name, value.trim());
  if (cursor) query.set('cursor', cursor);
  query.set('limit', '50');
  return query;
}

/** A hash route (`#/message/abc`) as its page and argument. */
export function parseRoute(hash: string): { page: string; arg: string | undefined } {
  const [page = 'overview', arg] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  return { page: page === '' ? 'overview' : page, arg };
}

/** The mailbox providers of the routing classifier: a warmup plan's field names, a shaping rule's `provider:` names. */
export const PROVIDERS = [
  'gmail',
  'yahoo',
  'aol',
  'microsoft',
  'comcast',
  'yandex',
  'gmx',
  'mailru',
  'icloud',
  'zoho',
  'qq',
  'default',
];

/** Each provider's warmup stage and daily limit, from the plan's JSON-string fields. */
export function warmupStages(plan: Record<string, unknown> | undefined): { provider: string; text: string }[] {
  if (!plan) return [];
  return PROVIDERS.flatMap((provider) => {
    const raw = plan[`${provider}WarmupPlan`];
    if (typeof raw !== 'string') return [];
    try {
      const stage = JSON.parse(raw) as { stage: number; dailyLimit: number | null; sentToday: number };
      return [{ provider, text: `stage ${stage.stage}, ${stage.sentToday}/${stage.dailyLimit ?? '∞'} today` }];
    } catch {
      return [];
    }
  });
}

/** At most this many groups in the comparison: each is one request. */
export const MAX_COMPARED_GROUPS = 10;

/**
 * `work` of each item, at most `limit` at a time, the answers in the items' order: the comparison
 * reads one aggregate per sub-account, and a hundred at once would spend the key's rate limit.
 */
export async function inBatches<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      out[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** What the pool form holds. */
export interface PoolDraft {
  name: string;
  routingStrategy: number;
  routingMetaData: string;
  shouldOverflow: boolean;
  overflowPoolName: string;
  warmupInterval: string;
  /** The member IPs' addresses. */
  ips: string[];
  /** The member third-party sending providers' ids. */
  tpsps: number[];
}

/**
 * The body of `POST /account/ippool` (no `original`) or `PUT /account/ippool/{id}` of a pool form:
 * the name only when it changed (the Shared pool refuses any rename), round robin's metadata `{}`,
 * no overflow pool without overflow; the members (IPs by address, TPSPs by id) as the form has them.
 */
export function poolRequestBody(draft: PoolDraft, original?: { name: string }): Record<string, unknown> {
  const name = draft.name.trim();
  const metadata = draft.routingMetaData.trim();
  const interval = Number(draft.warmupInterval);
  return {
    ...((!original || name !== original.name) && { name }),
    routingStrategy: draft.routingStrategy,
    routingMetaData: draft.routingStrategy === 0 || metadata === '' ? '{}' : metadata,
    shouldOverflow: draft.shouldOverflow,
    overflowPoolName: draft.shouldOverflow ? draft.overflowPoolName : '',
    ...(draft.warmupInterval.trim() !== '' && {
      warmupInterval: Number.isInteger(interval) ? interval : draft.warmupInterval,
    }),
    ips: draft.ips.map((publicIp) => ({ publicIp })),
    tpsps: draft.tpsps,
  };
}

/**
 * An event's SMTP reply as one line, or nothing when it has none: `SMTP reply: 550 5.1.1 …` (the
 * code once, whether or not the description repeats it); without a code (the connection failed
 * before a reply, or mailplane dropped the message) the description alone, as `Reason: …`.
 */
export function smtpReplyText(
  code: number | null | undefined,
  description: string | null | undefined,
): string | undefined {
  const text = (description ?? '').trim();
  if (typeof code !== 'number' || code <= 0) return text === '' ? undefined : `Reason: ${text}`;
  return text.startsWith(String(code)) ? `SMTP reply: ${text}` : `SMTP reply: ${`${code} ${text}`.trim()}`;
}

/**
 * The sub-account a page about one sub-account opens on: the one this browser last chose
 * (`remembered`) while it still exists, else the one with the most recent mail (`latestActive`),
 * else the newest (a newcomer's first sub-account is where their work is, not the empty Default).
 */
export function startSubAccount(
  subAccounts: readonly { id: number; created: number | string }[],
  remembered: number | undefined,
  latestActive: number | undefined,
): number | undefined {
  const exists = (id: number | undefined) => id !== undefined && subAccounts.some((s) => s.id === id);
  if (exists(remembered)) return remembered;
  if (exists(latestActive)) return latestActive;
  let newest: { id: number; created: number | string } | undefined;
  for (const s of subAccounts) if (!newest || Number(s.created) >= Number(newest.created)) newest = s;
  return newest?.id;
}
