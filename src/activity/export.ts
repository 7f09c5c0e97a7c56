import { stringifyJson } from '../model/json.js';
import type { ActivityCursor, ActivityFilter } from '../store/index.js';
import {
  activityFilter,
  eventPage,
  messagePage,
  type ActivityScope,
  type EventItem,
  type MessageItem,
  type ActivityListDeps,
} from './list.js';
import type { ExportQuery } from './query.js';

/** What this module uses of the instance: what it calls uses, {@link ActivityListDeps}, and nothing more. */
export type ActivityExportDeps = ActivityListDeps;

/** Rows read per store query: bounded memory whatever the export's size. */
const EXPORT_PAGE = 500;

type Page<T> = (
  ctx: ActivityExportDeps,
  filter: ActivityFilter,
  limit: number,
  after?: ActivityCursor,
) => Promise<{ items: T[]; next?: ActivityCursor }>;

/** Every item of `filter`, newest first, read a page at a time as the consumer pulls. */
async function* allItems<T>(ctx: ActivityExportDeps, filter: ActivityFilter, page: Page<T>): AsyncGenerator<T> {
  let after: ActivityCursor | undefined;
  do {
    const result = await page(ctx, filter, EXPORT_PAGE, after);
    yield* result.items;
    after = result.next;
  } while (after);
}

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break; a leading `=`, `+`,
 * `-` or `@` gets a `'` first so a spreadsheet shows it as text instead of running it as a formula.
 */
export function csvField(value: unknown): string {
  let text =
    value === undefined || value === null ? '' : typeof value === 'object' ? stringifyJson(value) : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const MESSAGE_COLUMNS: Array<[string, (m: MessageItem) => unknown]> = [
  ['messageID', (m) => m.messageID],
  ['submittedAt', (m) => m.submittedAt],
  ['subAccountID', (m) => m.subAccountID],
  ['status', (m) => m.status],
  ['from', (m) => m.from.email],
  ['to', (m) => m.to.email],
  ['subject', (m) => m.subject],
  ['groups', (m) => m.groups.join(';')],
  ['attempt', (m) => m.attempt],
  ['ipPool', (m) => m.ipPool],
];

const EVENT_COLUMNS: Array<[string, (e: EventItem) => unknown]> = [
  ['eventID', (e) => e.eventID],
  ['type', (e) => e.type],
  ['submittedAt', (e) => e.submittedAt],
  ['messageID', (e) => e.messageID],
  ['subAccountID', (e) => e.subAccountID],
  ['from', (e) => e.from],
  ['to', (e) => e.to],
  ['smtpCode', (e) => e.smtpCode],
  ['smtpDescription', (e) => e.smtpDescription],
];

async function* lines<T>(
  items: AsyncIterable<T>,
  format: ExportQuery['format'],
  columns: Array<[string, (item: T) => unknown]>,
): AsyncGenerator<string> {
  if (format === 'csv') yield `${columns.map(([name]) => name).join(',')}\r\n`;
  for await (const item of items) {
    yield format === 'csv'
      ? `${columns.map(([, get]) => csvField(get(item))).join(',')}\r\n`
      : `${stringifyJson(item)}\n`;
  }
}

/** An export as the HTTP layer streams it: its content type, extra headers and chunks. */
export interface ExportBody {
  contentType: string;
  headers: Record<string, string>;
  chunks: AsyncIterable<string>;
}

function body(format: ExportQuery['format'], name: string, chunks: AsyncIterable<string>): ExportBody {
  const contentType = format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
  return { contentType, headers: { 'content-disposition': `attachment; filename="${name}.${format}"` }, chunks };
}

/** `GET …/message/export`: every matching message, streamed as NDJSON (one list item a line) or CSV. */
export async function exportMessages(
  ctx: ActivityExportDeps,
  scope: ActivityScope,
  query: ExportQuery,
): Promise<ExportBody> {
  const filter = await activityFilter(ctx, scope, query);
  return body(query.format, 'messages', lines(allItems(ctx, filter, messagePage), query.format, MESSAGE_COLUMNS));
}

/** `GET …/event/export`: every matching event, streamed as NDJSON (one list item a line) or CSV. */
export async function exportEvents(
  ctx: ActivityExportDeps,
  scope: ActivityScope,
  query: ExportQuery,
): Promise<ExportBody> {
  const filter = await activityFilter(ctx, scope, query);
  return body(query.format, 'events', lines(allItems(ctx, filter, eventPage), query.format, EVENT_COLUMNS));
}
