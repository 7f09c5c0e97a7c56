/**
 * `GET …/suppression/export`: a whole suppression list as CSV, read a page at a time by id as the
 * client takes it, so its size costs time, not memory. Its columns are what the import reads back.
 */
import { csvField } from '../activity/export.js';
import type { SuppressionOwner, SuppressionRecord } from '../store/suppression-store.js';
import { expiryText } from './entries.js';
import { SUPPRESSION_TYPES } from './suppressions.js';
import type { MailplaneStore } from '../store/index.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface SuppressionExportDeps {
  readonly store: MailplaneStore;
}

/** Rows read per store query. */
const EXPORT_PAGE = 1000;

const COLUMNS: Array<[string, (record: SuppressionRecord) => string]> = [
  ['email', (r) => r.email],
  ['type', (r) => SUPPRESSION_TYPES.find(([, type]) => type === r.type)![0]],
  ['expires', (r) => expiryText(r.expires)],
  ['created', (r) => expiryText(r.created)],
  ['smtpError', (r) => r.smtpError],
];

/** The CSV lines of the list of `owner`, header first, in id order. */
export async function* exportSuppressions(ctx: SuppressionExportDeps, owner: SuppressionOwner): AsyncGenerator<string> {
  yield `${COLUMNS.map(([name]) => name).join(',')}\r\n`;
  let afterId: number | undefined;
  for (;;) {
    const rows = await ctx.store.suppressions.list(owner, { limit: EXPORT_PAGE, offset: 0, afterId });
    if (rows.length === 0) return;
    // One chunk per page: a million rows are a thousand writes, not a million.
    yield rows.map((record) => `${COLUMNS.map(([, get]) => csvField(get(record))).join(',')}\r\n`).join('');
    afterId = rows.at(-1)!.id;
  }
}
