/**
 * The fields of one protection line (block, warn, judged from), shared by the account's form and a
 * sub-account's override form; a field the API's refusal names is marked and points at the message.
 */
import { ApiError } from '../api.js';
import { html } from '../lib.js';
import { namesField, type LineDraft, type LineName } from '../protection-format.js';

/** What {@link LineFields} needs: the line, its draft, and where the form's refusal is. */
export interface LineFieldsProps {
  name: LineName;
  legend: string;
  draft: LineDraft;
  /** The paths the form's last refusal named (`hardBounceRate.warn`). */
  problems: readonly string[];
  /** The id of the form's error message, which a marked field points at. */
  errorId: string;
  onChange: (patch: Partial<LineDraft>) => void;
}

const FIELDS = [
  ['block', 'Block at (%)'],
  ['warn', 'Warn at (%)'],
  ['minProcessed', 'Judged from (processed)'],
] as const;

/** The three fields of a line, in a fieldset named after it. */
export const LineFields = ({ name, legend, draft, problems, errorId, onChange }: LineFieldsProps) =>
  html`<fieldset class="rule">
    <legend>${legend}</legend>
    ${FIELDS.map(
      ([field, label]) =>
        html`<label
          >${label}
          <input
            type="text"
            inputmode="decimal"
            required
            value=${draft[field]}
            ...${namesField(problems, `${name}.${field}`) ? { 'aria-invalid': 'true', 'aria-describedby': errorId } : {}}
            onInput=${(e: Event) => onChange({ [field]: (e.target as HTMLInputElement).value })}
        /></label>`,
    )}
  </fieldset>`;

/** The paths a refusal names (`hardBounceRate.warn`), or none for another failure. */
export const refusedPaths = (failure: unknown): string[] =>
  failure instanceof ApiError ? failure.details.map((detail) => detail.path) : [];
