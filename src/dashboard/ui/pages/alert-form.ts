/**
 * The form of an alert rule (docs/reputation.md): create one, or edit one of the list. The entity is
 * chosen by type, then by name; the API checks the rule whole, and its refusal is shown beside the
 * form, the fields it names marked, with everything typed kept.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { ErrorNote, html, useApp } from '../lib.js';
import {
  alertBody,
  draftOfAlert,
  ENTITY_TYPES,
  fieldProblems,
  PARAMETERS,
  PROVIDER_CHOICES,
  unitText,
  WINDOWS,
  type AlertDraft,
  type AlertRule,
} from '../reputation-format.js';
import { entityChoices, type DomainNames } from './entity-names.js';
import type { Names } from './names.js';

interface AlertFormProps {
  /** The rule to edit; a new one without it. */
  rule?: AlertRule;
  names: Names;
  domains: DomainNames;
  /** Called with the stored rule once the API has it. */
  onSaved: (rule: AlertRule) => void;
  onCancel?: () => void;
  /** Called when the entity type changes, so the page reads the domains once one is wanted. */
  onEntityType?: (type: string) => void;
}

/** An entity type as the second select names it (`Which IP pool`, `Which sub-account`). */
function entityWord(type: string): string {
  const word = ENTITY_TYPES.find(([value]) => value === type)?.[1] ?? 'entity';
  return word.startsWith('IP') ? word : word.toLowerCase();
}

/** Options of a select: value and words. */
const options = (choices: readonly (readonly [string | number, string])[]) =>
  choices.map(([value, label]) => html`<option value=${String(value)}>${label}</option>`);

/** A rule's form. */
export function AlertForm({ rule, names, domains, onSaved, onCancel, onEntityType }: AlertFormProps) {
  const { api } = useApp();
  const [draft, setDraft] = useState<AlertDraft>(() => draftOfAlert(rule));
  const [error, setError] = useState<string | undefined>();
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const prefix = rule ? `alert-${rule.id}` : 'alert-new';
  const errorId = `${prefix}-error`;
  const change = (patch: Partial<AlertDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const text = (event: Event) => (event.target as HTMLInputElement).value;
  /** The attributes of a field the API's refusal named. */
  const marked = (field: string) =>
    problems[field] === undefined ? {} : { 'aria-invalid': 'true', 'aria-describedby': errorId };
  const choices = entityChoices(draft.entityType, names, domains);
  // A rule whose entity is gone (or not yet read) keeps it as a choice, so an edit does not change it unsaid.
  const keptEntity =
    draft.entityValue !== '' && !choices.some(([id]) => String(id) === draft.entityValue)
      ? html`<option value=${draft.entityValue}>${`#${draft.entityValue}`}</option>`
      : null;
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setProblems({});
    setBusy(true);
    try {
      const body = alertBody(draft);
      const saved = rule
        ? await api.call<AlertRule>('PUT', `/account/alert/${rule.id}`, { body })
        : await api.call<AlertRule>('POST', '/account/alert/', { body });
      if (!rule) setDraft(draftOfAlert());
      onSaved(saved);
    } catch (failure) {
      setError((failure as Error).message);
      if (failure instanceof ApiError) setProblems(fieldProblems(failure.details));
    } finally {
      setBusy(false);
    }
  };
  return html`<form
    class="alert-form"
    aria-label=${rule ? `Edit the rule ${rule.name}` : 'Create an alert rule'}
    onSubmit=${submit}
  >
    <label
      >Name
      <input
        type="text"
        required
        maxlength="100"
        value=${draft.name}
        ...${marked('name')}
        onInput=${(e: Event) => change({ name: text(e) })}
    /></label>
    <label
      >Watch
      <select
        value=${draft.entityType}
        ...${marked('entityType')}
        onChange=${(e: Event) => (change({ entityType: text(e), entityValue: '' }), onEntityType?.(text(e)))}
      >
        ${options(ENTITY_TYPES)}
      </select></label
    >
    ${
      draft.entityType !== 'account' &&
      html`<label
        >Which ${entityWord(draft.entityType)}
        <select
          value=${draft.entityValue}
          ...${marked('entityValue')}
          onChange=${(e: Event) => change({ entityValue: text(e) })}
        >
          <option value="">Choose…</option>
          ${options(choices)} ${keptEntity}
        </select></label
      >`
    }
    <label
      >Parameter
      <select
        value=${draft.parameter}
        ...${marked('parameter')}
        onChange=${(e: Event) => change({ parameter: text(e) })}
      >
        ${options(PARAMETERS)}
      </select></label
    >
    <label
      >Threshold (${unitText(Number(draft.parameter))})
      <input
        type="text"
        inputmode="decimal"
        required
        value=${draft.threshold}
        ...${marked('threshold')}
        onInput=${(e: Event) => change({ threshold: text(e) })}
    /></label>
    <label
      >Provider
      <select value=${draft.provider} ...${marked('provider')} onChange=${(e: Event) => change({ provider: text(e) })}>
        ${options(PROVIDER_CHOICES)}
      </select></label
    >
    <label
      >Window
      <select
        value=${draft.windowHours}
        ...${marked('windowHours')}
        onChange=${(e: Event) => change({ windowHours: text(e) })}
      >
        ${options(WINDOWS)}
      </select></label
    >
    <label
      >Minimum volume (messages)
      <input
        type="number"
        min="0"
        step="1"
        value=${draft.processedCountThreshold}
        ...${marked('processedCountThreshold')}
        onInput=${(e: Event) => change({ processedCountThreshold: text(e) })}
    /></label>
    <label class="wide"
      >Notify by email (addresses separated by commas)
      <input
        type="text"
        value=${draft.emails}
        placeholder="ops@example.com, oncall@example.com"
        ...${marked('emails')}
        onInput=${(e: Event) => change({ emails: text(e) })}
    /></label>
    <label class="wide"
      >Slack incoming webhook URL (optional)
      <input
        type="url"
        value=${draft.slackUrl}
        placeholder="https://hooks.slack.com/services/…"
        ...${marked('slackUrl')}
        onInput=${(e: Event) => change({ slackUrl: text(e) })}
    /></label>
    <label class="check"
      ><input type="checkbox" checked=${draft.active} onChange=${() => change({ active: !draft.active })} />
      Active</label
    >
    <div id=${errorId} class="form-error"><${ErrorNote} message=${error} /></div>
    <div class="actions">
      <button type="submit" disabled=${busy}>${rule ? 'Save rule' : 'Create rule'}</button>
      ${onCancel && html`<button type="button" class="secondary" onClick=${onCancel}>Cancel</button>`}
    </div>
  </form>`;
}
