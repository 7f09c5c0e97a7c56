/**
 * `mailplane tail`: follows the account's events (`GET /account/event`, docs/activity.md) as
 * readable lines or NDJSON. The list is newest first and its cursor pages back in time, so
 * following is a poll for the events at or after the newest one seen (`from`, inclusive), with the
 * events already printed at that very nanosecond left out by id.
 */
import { EventType } from 'mailplane';
import { accountKeyOf, Api } from '../api.js';
import { EXIT, integerFlag, stringFlag, type CliCommand } from '../command.js';
import { SERVER_FLAGS, SERVER_FLAGS_HELP, serverAccess } from '../environment.js';
import { exactInteger, stringifyExact } from '../exact-json.js';

/** An event as the API answers it (the reference's `Event`; the members printed). */
export interface EventItem {
  eventID: string;
  type: number;
  messageID: string;
  subAccountID: number;
  from: string;
  to: string;
  messageSubject: string;
  /** Nanoseconds since the epoch, kept exact ({@link exactInteger}). */
  submittedAt: unknown;
  smtpCode?: number;
  smtpDescription?: string;
}

/** One page of the event list. */
interface EventPage {
  items: EventItem[];
  nextCursor: string | null;
}

/** Event type numbers to their names (`2` → `Delivered`). */
const TYPE_NAMES = new Map<number, string>(Object.entries(EventType).map(([name, value]) => [value, name]));

/** The event's time in nanoseconds since the epoch, exact (the API writes it as a number above 2^53). */
function eventNs(event: EventItem): bigint {
  return exactInteger(event.submittedAt);
}

/** One readable line: time (UTC, milliseconds), type, recipient, sender, subject, SMTP answer. */
export function eventLine(event: EventItem): string {
  const time = new Date(Number(eventNs(event) / 1_000_000n)).toISOString();
  const type = (TYPE_NAMES.get(event.type) ?? `type ${event.type}`).padEnd(12);
  // The description starts with the code already (`550 5.1.1 …`).
  const answer = event.smtpDescription ?? event.smtpCode;
  const smtp = answer !== undefined ? ` [${answer}]` : '';
  return `${time} ${type} ${event.to} from ${event.from} "${event.messageSubject}" message ${event.messageID}${smtp}`;
}

/** Filters of the event list that `tail` passes through. */
interface TailFilters {
  subAccountId?: string;
  type?: string;
  recipient?: string;
}

/** Every event at or after `fromNs` (all of them when `undefined`, at most `max`), oldest first. */
async function eventsSince(
  api: Api,
  accountKey: string,
  filters: TailFilters,
  fromNs: bigint | undefined,
  max: number,
): Promise<EventItem[]> {
  const newestFirst: EventItem[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.call<EventPage>({
      path: '/account/event',
      key: { account: accountKey },
      query: { ...filters, limit: Math.min(1000, max - newestFirst.length), cursor, from: fromNs?.toString() },
    });
    newestFirst.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && newestFirst.length < max);
  return newestFirst.reverse();
}

/** `mailplane tail`. */
export const command: CliCommand = {
  name: 'tail',
  summary: "follow the account's events as lines or NDJSON",
  positionals: { min: 0, max: 0, names: '' },
  options: {
    ...SERVER_FLAGS,
    json: { type: 'boolean' },
    lines: { type: 'string', short: 'n' },
    once: { type: 'boolean' },
    limit: { type: 'string' },
    interval: { type: 'string' },
    subaccount: { type: 'string' },
    type: { type: 'string' },
    recipient: { type: 'string' },
  },
  help: `Usage: mailplane tail [flags]

Prints the account's latest events (GET /api/v1/account/event), oldest first, then follows new ones
until Ctrl-C: one readable line per event, or with --json the event exactly as the API and webhooks
give it, one JSON object per line (NDJSON).

Flags:
  --json                NDJSON instead of readable lines
  -n, --lines N         how many past events to print first (default 10; 0 for new ones only)
  --once                print the past events and exit instead of following
  --limit N             exit after printing N events
  --interval MS         how often to ask for new events, in milliseconds (default 1000)
  --subaccount ID       one sub-account's events only
  --type LIST           event types only, comma-separated numbers (2,3,4: delivered and bounces)
  --recipient ADDRESS   one recipient's events only
${SERVER_FLAGS_HELP}
  -h, --help            this help

Exit status: 0 after --once, --limit or Ctrl-C; 1 the server answered an error or cannot be
reached; 2 a usage error.

Examples:
  mailplane tail
  mailplane tail --json --type 3,4 | jq .to`,
  run: async ({ values, env }) => {
    const backlog = integerFlag(values, 'lines', { min: 0, max: 100_000, fallback: 10 });
    const limit = integerFlag(values, 'limit', { min: 1, max: Number.MAX_SAFE_INTEGER, fallback: Infinity });
    const intervalMs = integerFlag(values, 'interval', { min: 50, max: 3_600_000, fallback: 1000 });
    const access = serverAccess(values, env);
    const api = new Api(access.baseUrl);
    const accountKey = accountKeyOf(access);
    const filters: TailFilters = {};
    const subAccountId = stringFlag(values, 'subaccount');
    const type = stringFlag(values, 'type');
    const recipient = stringFlag(values, 'recipient');
    if (subAccountId !== undefined) filters.subAccountId = subAccountId;
    if (type !== undefined) filters.type = type;
    if (recipient !== undefined) filters.recipient = recipient;

    let printed = 0;
    // The newest time printed and the events printed at that nanosecond: the next poll starts there.
    let newestNs: bigint | undefined;
    let atNewest = new Set<string>();
    const print = (events: EventItem[]) => {
      for (const event of events) {
        if (printed >= limit) return;
        const ns = eventNs(event);
        if (newestNs !== undefined && (ns < newestNs || (ns === newestNs && atNewest.has(event.eventID)))) continue;
        if (newestNs === undefined || ns > newestNs) atNewest = new Set();
        newestNs = ns;
        atNewest.add(event.eventID);
        console.log(values.json === true ? stringifyExact(event) : eventLine(event));
        printed++;
      }
    };
    // The newest event marks where following starts even when none of the backlog is printed.
    const latest = await eventsSince(api, accountKey, filters, undefined, Math.max(backlog, 1));
    if (backlog === 0) {
      const newest = latest.at(-1);
      if (newest) {
        newestNs = eventNs(newest);
        atNewest = new Set(latest.filter((event) => eventNs(event) === newestNs).map((event) => event.eventID));
      }
    } else {
      print(latest);
    }
    // On stderr, so NDJSON on stdout stays clean: says the backlog is done and following has begun.
    if (values.once !== true && printed < limit) console.error('mailplane: following new events (Ctrl-C to stop)');
    while (values.once !== true && printed < limit) {
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
      print(await eventsSince(api, accountKey, filters, newestNs, 100_000));
    }
    return EXIT.ok;
  },
};
