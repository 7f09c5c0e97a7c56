/**
 * The rule tables of traffic shaping (docs/shaping.md, "Rules"): the defaults (the built-in table and
 * the configuration's rules, read-only) and the account's own, edited as a whole and saved with
 * `PUT /account/shaping/rule`. A refused table keeps what was typed and marks the rule the API names.
 */
import { useRef, useState } from 'preact/hooks';
import { PROVIDERS } from '../format.js';
import { EmptyState, ErrorNote, html, Status, TableScroll, useApp, useLoad } from '../lib.js';
import {
  draftOfRule,
  LIMIT_FIELDS,
  limitText,
  ruleOfDraft,
  ruleProblem,
  ruleRate,
  type LimitField,
  type RuleDraft,
  type ShapingRule,
} from '../shaping-format.js';
import type { Tpsp } from './pool-form.js';

/** What `GET` and `PUT /account/shaping/rule` answer. */
interface RuleTables {
  defaults: ShapingRule[];
  rules: ShapingRule[];
}

/** The defaults, read-only: what the account's own rules are laid over. */
function DefaultRules({ rules }: { rules: readonly ShapingRule[] }) {
  const limit = (value: number | undefined) => (value === undefined ? '—' : limitText(value));
  return html`<${TableScroll}><table class="list shaping">
    <caption>
      Default rules (built in and configured; a dash inherits)
    </caption>
    <thead>
      <tr>
        <th scope="col">Destination</th>
        <th scope="col">Source</th>
        <th scope="col">Connections</th>
        <th scope="col">Messages per connection</th>
        <th scope="col">Rate</th>
        <th scope="col">Connect timeout (ms)</th>
        <th scope="col">Idle timeout (ms)</th>
      </tr>
    </thead>
    <tbody>
      ${rules.map(
        (rule) =>
          html`<tr>
            <td><code>${rule.destination}</code></td>
            <td><code>${rule.source}</code></td>
            <td>${limit(rule.maxConnections)}</td>
            <td>${limit(rule.maxMessagesPerConnection)}</td>
            <td>${ruleRate(rule)}</td>
            <td>${limit(rule.connectTimeoutMs)}</td>
            <td>${limit(rule.idleTimeoutMs)}</td>
          </tr>`,
      )}
    </tbody>
  </table></${TableScroll}>`;
}

interface EditorProps {
  rules: readonly ShapingRule[];
  /** The account's IPs by address and its TPSPs: the sources the form suggests. */
  ips: readonly string[];
  tpsps: readonly Tpsp[];
}

/** The account's own rules as a form: add and remove rows, then save the table whole. */
function OwnRules({ rules, ips, tpsps }: EditorProps) {
  const { api } = useApp();
  const nextId = useRef(rules.length);
  const [drafts, setDrafts] = useState<RuleDraft[]>(() => rules.map((rule, i) => draftOfRule(i, rule)));
  const [problem, setProblem] = useState<{ index: number | undefined; text: string } | undefined>();
  const [saved, setSaved] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const change = (id: number, patch: Partial<RuleDraft>) =>
    setDrafts((all) => all.map((d) => (d.id === id ? { ...d, ...patch } : d)));
  const changeLimit = (draft: RuleDraft, field: LimitField, value: string) =>
    change(draft.id, { limits: { ...draft.limits, [field]: value } });
  const add = () => setDrafts((all) => [...all, draftOfRule(nextId.current++)]);
  const remove = (id: number) => setDrafts((all) => all.filter((d) => d.id !== id));
  const value = (event: Event) => (event.target as HTMLInputElement).value;
  const save = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    setSaved(undefined);
    setBusy(true);
    try {
      const answer = await api.call<RuleTables>('PUT', '/account/shaping/rule', {
        body: { rules: drafts.map(ruleOfDraft) },
      });
      // The stored form of each rule (a destination in lower case), as the next reading shows it.
      setDrafts(answer.rules.map((rule) => draftOfRule(nextId.current++, rule)));
      const count = answer.rules.length;
      setSaved(count === 0 ? 'Saved: the defaults alone apply.' : `Saved ${count} rule${count === 1 ? '' : 's'}.`);
    } catch (failure) {
      setProblem(ruleProblem((failure as Error).message));
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="shaping-rules" aria-labelledby="own-rules-title" onSubmit=${save}>
    <h3 id="own-rules-title">Your rules</h3>
    <p class="hint">
      Laid over the defaults, for this account's mail; a later rule wins over an earlier one as specific. A field left
      empty is inherited.
    </p>
    <p class="hint">
      ${'Destination: '}<code>provider:gmail</code>${', '}<code>mx:outlook.com</code>${', '}<code
        >domain:example.com</code
      >
      ${' or '}<code>*</code>${'. Source: '}<code>ip:</code>${' and an IP of the account, '}<code>tpsp:</code>
      ${" and a TPSP's id, or "}<code>*</code>.
    </p>
    ${
      drafts.length === 0 &&
      html`<${EmptyState}>No rules of your own: the defaults above apply. Add a rule to set limits of your own.</${EmptyState}>`
    }
    ${drafts.map(
      (draft, index) =>
        html`<fieldset
          key=${draft.id}
          class=${problem?.index === index ? 'rule invalid' : 'rule'}
          aria-describedby=${problem?.index === index ? 'own-rules-error' : undefined}
        >
          <legend>Rule ${index + 1}</legend>
          <label
            >Destination
            <input
              type="text"
              required
              list="shaping-destinations"
              value=${draft.destination}
              onInput=${(e: Event) => change(draft.id, { destination: value(e) })}
          /></label>
          <label
            >Source
            <input
              type="text"
              required
              list="shaping-sources"
              value=${draft.source}
              onInput=${(e: Event) => change(draft.id, { source: value(e) })}
          /></label>
          ${LIMIT_FIELDS.map(
            ([field, label]) =>
              html`<label
                >${label}
                <input
                  type="number"
                  min="1"
                  step="1"
                  value=${draft.limits[field]}
                  onInput=${(e: Event) => changeLimit(draft, field, value(e))}
              /></label>`,
          )}
          <button type="button" class="secondary" onClick=${() => remove(draft.id)}>Remove rule ${index + 1}</button>
        </fieldset>`,
    )}
    <datalist id="shaping-destinations">
      <option value="*"></option>
      ${PROVIDERS.map((provider) => html`<option value=${`provider:${provider}`}></option>`)}
    </datalist>
    <datalist id="shaping-sources">
      <option value="*"></option>
      ${ips.map((ip) => html`<option value=${`ip:${ip}`}></option>`)}
      ${tpsps.map((t) => html`<option value=${`tpsp:${t.id}`}>${t.name}</option>`)}
    </datalist>
    <div id="own-rules-error"><${ErrorNote} message=${problem?.text} /></div>
    ${saved && html`<${Status}>${saved}</${Status}>`}
    <div class="actions">
      <button type="button" class="secondary" onClick=${add}>Add a rule</button>
      <button type="submit" disabled=${busy}>Save rules</button>
    </div>
  </form>`;
}

/** The defaults and the account's own rules. */
export function ShapingRules({ ips, tpsps }: Omit<EditorProps, 'rules'>) {
  const { api } = useApp();
  const tables = useLoad(() => api.call<RuleTables>('GET', '/account/shaping/rule'), []);
  return html`<h2>Rules</h2>
    <${ErrorNote} message=${tables.error} />
    ${tables.loading && html`<${Status}>Loading rules…</${Status}>`}
    ${tables.data && html`<${DefaultRules} rules=${tables.data.defaults} />`}
    ${tables.data && html`<${OwnRules} rules=${tables.data.rules} ips=${ips} tpsps=${tpsps} />`}`;
}
