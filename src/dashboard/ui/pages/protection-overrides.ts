/**
 * The sub-accounts' own automatic protection (docs/reputation.md, `/account/protection/subaccount/{id}`):
 * the sub-accounts with overrides by name, what each sets of its own; a form to add or change one
 * (on, off or as the account; each line its own or the account's), and removal, confirmed.
 */
import { useState } from 'preact/hooks';
import { confirmed, EmptyState, ErrorNote, html, TableScroll, useApp } from '../lib.js';
import {
  draftOfOverride,
  overrideBody,
  PROTECTION_LINES,
  protectionLineText,
  type EnabledChoice,
  type LineDraft,
  type LineName,
  type OverrideDraft,
  type Protection,
  type ProtectionOverrides as Overrides,
} from '../protection-format.js';
import { subAccountOptionText, SubAccountLink, type Names } from './names.js';
import { LineFields, refusedPaths } from './protection-fields.js';

interface ProtectionOverridesProps {
  protection: Protection;
  names: Names;
  /** Called with what was done once the API has it, so the panel reads the protection again. */
  onSaved: (message: string) => void;
  /** Called when a change begins, so the panel's last message goes. */
  onStart: () => void;
}

const ENABLED_CHOICES: readonly (readonly [EnabledChoice, string])[] = [
  ['account', "As the account's"],
  ['on', 'On'],
  ['off', 'Off'],
];

/** What an override sets of `enabled`, in words. */
const enabledText = (overrides: Overrides): string =>
  overrides.enabled === undefined ? "as the account's" : overrides.enabled ? 'on' : 'off';

/** The sub-accounts' overrides and the form that adds, changes and removes them. */
export function ProtectionOverrides({ protection, names, onSaved, onStart }: ProtectionOverridesProps) {
  const { api } = useApp();
  const [chosen, setChosen] = useState('');
  const [draft, setDraft] = useState<OverrideDraft | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [problems, setProblems] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const errorId = 'protection-override-error';
  const nameOf = (id: number) => names.subAccounts.get(id) ?? `Sub-account ${id}`;
  const overridesOf = (id: number) => protection.subAccounts.find((s) => s.subAccountId === id)?.overrides ?? {};
  const choose = (id: string) => {
    onStart();
    setError(undefined);
    setProblems([]);
    setChosen(id);
    setDraft(id === '' ? undefined : draftOfOverride(overridesOf(Number(id)), protection.settings));
  };
  const changeLine = (name: LineName, patch: Partial<LineDraft>) =>
    setDraft((d) => d && { ...d, [name]: { ...d[name], ...patch } });
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!draft || chosen === '') return;
    onStart();
    setError(undefined);
    setProblems([]);
    setBusy(true);
    try {
      await api.call('PUT', `/account/protection/subaccount/${chosen}`, { body: overrideBody(draft) });
      const name = nameOf(Number(chosen));
      setChosen('');
      setDraft(undefined);
      onSaved(`Saved the override of ${name}.`);
    } catch (failure) {
      setError((failure as Error).message);
      setProblems(refusedPaths(failure));
    } finally {
      setBusy(false);
    }
  };
  const remove = (id: number) =>
    confirmed(`Remove the protection override of ${nameOf(id)}? It follows the account's settings again.`, async () => {
      onStart();
      setError(undefined);
      try {
        await api.call('DELETE', `/account/protection/subaccount/${id}`);
        if (chosen === String(id)) choose('');
        onSaved(`Removed the override of ${nameOf(id)}.`);
      } catch (failure) {
        setError((failure as Error).message);
      }
    });
  const rows = protection.subAccounts;
  return html`<h3>Sub-accounts with their own protection</h3>
    ${
      rows.length === 0 &&
      html`<${EmptyState}>
        No sub-account has its own protection: each follows the account's settings above. Give one its own with the
        form below.
      </${EmptyState}>`
    }
    ${
      rows.length > 0 &&
      html`<${TableScroll}><table class="list">
        <caption>
          Overrides by sub-account
        </caption>
        <thead>
          <tr>
            <th scope="col">Sub-account</th>
            <th scope="col">Protection</th>
            ${PROTECTION_LINES.map(([, label]) => html`<th scope="col">${label}</th>`)}
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            ({ subAccountId: id, overrides }) =>
              html`<tr key=${id}>
                <td><${SubAccountLink} id=${id} names=${names} /></td>
                <td>${enabledText(overrides)}</td>
                ${PROTECTION_LINES.map(([name]) => {
                  const line = overrides[name];
                  return html`<td>${line ? protectionLineText(line) : "as the account's"}</td>`;
                })}
                <td>
                  <div class="row-actions">
                    <button
                      type="button"
                      class="secondary"
                      aria-label=${`Change the override of ${nameOf(id)}`}
                      onClick=${() => choose(String(id))}
                    >
                      Change
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label=${`Remove the override of ${nameOf(id)}`}
                      onClick=${() => remove(id)}
                    >
                      Remove
                    </button>
                  </div>
                </td>
              </tr>`,
          )}
        </tbody>
      </table></${TableScroll}>`
    }
    <h3>Give a sub-account its own protection</h3>
    <form class="alert-form protection-form" aria-label="A sub-account's own protection" onSubmit=${submit}>
      <label
        >Sub-account
        <select value=${chosen} onChange=${(e: Event) => choose((e.target as HTMLSelectElement).value)}>
          <option value="">Choose…</option>
          ${[...names.subAccounts].map(
            ([id, name]) =>
              html`<option value=${String(id)}>
                ${subAccountOptionText({ name, blocked: names.blocked.has(id) })}
              </option>`,
          )}
        </select></label
      >
      ${
        draft &&
        html`<label
            >Protection
            <select
              value=${draft.enabled}
              ...${problems.includes('enabled') ? { 'aria-invalid': 'true', 'aria-describedby': errorId } : {}}
              onChange=${(e: Event) =>
                setDraft({ ...draft, enabled: (e.target as HTMLSelectElement).value as EnabledChoice })}
            >
              ${ENABLED_CHOICES.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
            </select></label
          >
          ${PROTECTION_LINES.map(
            ([name, legend]) =>
              html`<label class="check"
                  ><input
                    type="checkbox"
                    checked=${draft.own[name]}
                    onChange=${() => setDraft({ ...draft, own: { ...draft.own, [name]: !draft.own[name] } })}
                  />
                  Own ${legend.toLowerCase()} line</label
                >
                ${
                  draft.own[name] &&
                  html`<${LineFields}
                    name=${name}
                    legend=${`${legend} of this sub-account`}
                    draft=${draft[name]}
                    problems=${problems}
                    errorId=${errorId}
                    onChange=${(patch: Partial<LineDraft>) => changeLine(name, patch)}
                  />`
                }`,
          )}`
      }
      <div id=${errorId} class="form-error"><${ErrorNote} message=${error} /></div>
      <div class="actions">
        <button type="submit" disabled=${busy || !draft}>Save override</button>
      </div>
    </form>`;
}
