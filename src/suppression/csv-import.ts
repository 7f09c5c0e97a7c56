/**
 * `POST …/suppression/import`: a CSV body streamed into a suppression list (docs/suppressions.md).
 * Rows are read one line at a time and stored {@link IMPORT_CHUNK} at a time, so a list of a
 * million rows takes the memory of one chunk; a row that cannot be taken is reported by its line
 * number and the others are stored.
 */
import { ValidationError } from '../errors.js';
import { msToNs } from '../model/time.js';
import type { NewSuppression, SuppressionOwner, SuppressionType } from '../store/suppression-store.js';
import { csvFields, csvLines, MAX_CSV_LINE } from './csv-lines.js';
import { parseExpiry, suppressionEntryProblem } from './entries.js';
import { SUPPRESSION_TYPES, type SuppressionsDeps } from './suppressions.js';

/** What this module uses of the instance: what it calls uses, {@link SuppressionsDeps}, and nothing more. */
export type SuppressionImportDeps = SuppressionsDeps;

/** Rows stored per store call (one transaction each). */
const IMPORT_CHUNK = 1000;
/** The largest import body: 256 MiB, a million rows of up to 268 bytes each (docs/security.md). */
export const MAX_IMPORT_BYTES = 256 * 1024 * 1024;
/** Row errors listed in the answer; the rest are counted only, so the answer stays small. */
export const MAX_REPORTED_ROW_ERRORS = 1000;
/** Where the columns the import reads are (-1: absent); others (the export's `created`, `smtpError`) are ignored. */
interface ImportColumns {
  email: number;
  type: number;
  expires: number;
}

/** One row the import could not take. */
export interface ImportRowError {
  /** The line of the body, counted from 1 (the header is line 1). */
  line: number;
  /** `CSV_MALFORMED_ROW`, `CSV_LINE_TOO_LONG`, `INVALID_EMAIL`, `INVALID_TYPE` or `INVALID_EXPIRY`. */
  code: string;
  message: string;
}

/** The answer of an import. */
export interface ImportReport {
  /** Data rows read (blank lines are skipped and not counted). */
  rows: number;
  /** Rows stored, or already on the list (an import is idempotent like every add). */
  imported: number;
  /** Rows refused. */
  failed: number;
  /** The first {@link MAX_REPORTED_ROW_ERRORS} refused rows, in line order. */
  errors: ImportRowError[];
}

/** A type cell: a type name of the API (any case), its number (`reason`), or empty for manual. */
function typeOf(cell: string): SuppressionType | null {
  const value = cell.trim().toLowerCase();
  if (value === '') return 0;
  const found = SUPPRESSION_TYPES.find(([name, type]) => name.toLowerCase() === value || String(type) === value);
  return found ? found[1] : null;
}

/**
 * A cell as written: the export prefixes `'` to a value starting with `=`, `+`, `-` or `@` so a
 * spreadsheet does not run it (src/activity/export.ts, csvField); the import takes it off again.
 */
const unguarded = (cell: string) => (/^'[=+\-@]/.test(cell) ? cell.slice(1) : cell.trim());

/** Where each column is in the header's fields, or a 422 when there is no `email` column. */
function headerColumns(fields: string[] | null): ImportColumns {
  const names = (fields ?? []).map((field) => field.trim().toLowerCase());
  const at = (name: string) => names.indexOf(name.toLowerCase());
  if (at('email') < 0)
    throw new ValidationError(
      'the first line of the CSV must be its header naming the columns, with at least email (email,type,expires)',
      [],
      'CSV_HEADER_MISSING',
    );
  return { email: at('email'), type: at('type'), expires: at('expires') };
}

/**
 * Reads `body` as CSV and adds its rows to the list of `owner`. The header is required; `type`
 * and `expires` columns are optional. Answers the counts and the refused rows.
 */
export async function importSuppressions(
  ctx: SuppressionImportDeps,
  owner: SuppressionOwner,
  body: AsyncIterable<Uint8Array | string>,
): Promise<ImportReport> {
  const nowMs = ctx.clock.now();
  const created = msToNs(nowMs);
  const report: ImportReport = { rows: 0, imported: 0, failed: 0, errors: [] };
  const refuse = (line: number, code: string, message: string) => {
    report.failed += 1;
    if (report.errors.length < MAX_REPORTED_ROW_ERRORS) report.errors.push({ line, code, message });
  };
  let columns: ImportColumns | undefined;
  let chunk: NewSuppression[] = [];
  const store = async () => {
    if (chunk.length === 0) return;
    await ctx.store.suppressions.add(owner, chunk);
    report.imported += chunk.length;
    chunk = [];
  };
  for await (const { number, text } of csvLines(body)) {
    if (text !== null && text.trim() === '') continue;
    if (columns === undefined) {
      columns = headerColumns(text === null ? null : csvFields(text));
      continue;
    }
    report.rows += 1;
    if (text === null) {
      refuse(number, 'CSV_LINE_TOO_LONG', `the line is longer than ${MAX_CSV_LINE} characters`);
      continue;
    }
    const fields = csvFields(text);
    if (fields === null) {
      refuse(number, 'CSV_MALFORMED_ROW', 'the line is not valid CSV (a quote is not closed or not doubled)');
      continue;
    }
    const cell = (index: number) => (index < 0 ? '' : unguarded(fields[index] ?? ''));
    const email = cell(columns.email);
    const problem = email === '' ? 'must not be empty' : suppressionEntryProblem(email);
    if (problem !== null) {
      refuse(number, 'INVALID_EMAIL', `email ${problem}`);
      continue;
    }
    const type = typeOf(cell(columns.type));
    if (type === null) {
      refuse(number, 'INVALID_TYPE', 'type must be manual, unsubscribe, hardBounce or spamComplaint (or 0 to 3)');
      continue;
    }
    const expiresCell = cell(columns.expires);
    const entry: NewSuppression = { email, type, created };
    if (expiresCell !== '') {
      const expiry = parseExpiry(expiresCell, nowMs);
      if ('problem' in expiry) {
        refuse(number, 'INVALID_EXPIRY', `expires ${expiry.problem}`);
        continue;
      }
      entry.expires = expiry.ns;
    }
    chunk.push(entry);
    if (chunk.length >= IMPORT_CHUNK) await store();
  }
  if (columns === undefined) headerColumns(null);
  await store();
  return report;
}
