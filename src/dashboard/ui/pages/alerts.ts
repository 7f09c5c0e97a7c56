/**
 * Alert rules of the account (docs/reputation.md): each rule in words (what it watches by name, the
 * parameter, the line with its unit, the provider, the window, the least volume, where it notifies),
 * a form to create one and one to edit each, deletion confirmed; below them the automatic protection
 * (protection.ts). Account sessions only.
 */
import { useState } from 'preact/hooks';
import { confirmed, EmptyState, ErrorNote, html, Status, TableScroll, useApp, useLoad } from '../lib.js';
import { lineText, parameterText, providerText, windowText, type AlertRule } from '../reputation-format.js';
import { formatCount } from '../shaping-format.js';
import { AlertForm } from './alert-form.js';
import { EntityName, useDomainNames, type DomainNames } from './entity-names.js';
import { useNames, type Names } from './names.js';
import { ProtectionPanel } from './protection.js';

/** Where a rule notifies, in words. */
function notifyText(rule: AlertRule): string {
  const targets = [...rule.emails, ...(rule.slackUrl ? ['Slack'] : [])];
  return targets.length === 0 ? 'nobody (incidents only)' : targets.join(', ');
}

interface RuleRowProps {
  rule: AlertRule;
  names: Names;
  domains: DomainNames;
  editing: boolean;
  onEdit: () => void;
  onDelete: () => void;
}

const RuleRow = ({ rule, names, domains, editing, onEdit, onDelete }: RuleRowProps) =>
  html`<tr>
    <td>${rule.name}</td>
    <td><${EntityName} type=${rule.entityType} value=${rule.entityValue} names=${names} domains=${domains} /></td>
    <td>${parameterText(rule.parameter)}</td>
    <td>${lineText(rule.parameter, rule.threshold)}</td>
    <td>${providerText(rule.provider)}</td>
    <td>${windowText(rule.windowHours)}</td>
    <td>${formatCount(rule.processedCountThreshold)} messages</td>
    <td>
      ${rule.active ? html`<span class="badge status-delivered">active</span>` : html`<span class="badge">off</span>`}
    </td>
    <td class="notify">${notifyText(rule)}</td>
    <td>
      <div class="row-actions">
        <button
          type="button"
          class="secondary"
          aria-label=${`Edit ${rule.name}`}
          aria-expanded=${editing}
          onClick=${onEdit}
        >
          Edit
        </button>
        <button type="button" class="danger" aria-label=${`Delete ${rule.name}`} onClick=${onDelete}>Delete</button>
      </div>
    </td>
  </tr>`;

/** The Alerts page. */
export function Alerts() {
  const { api } = useApp();
  const names = useNames();
  const rules = useLoad(() => api.call<AlertRule[]>('GET', '/account/alert/', { query: { limit: '1000' } }), []);
  const [editing, setEditing] = useState<number | undefined>();
  const [formType, setFormType] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const domains = useDomainNames(
    names,
    formType === 'domain' || (rules.data ?? []).some((rule) => rule.entityType === 'domain'),
  );
  const saved = (message: string) => {
    setError(undefined);
    setDone(message);
    setEditing(undefined);
    rules.reload();
  };
  const remove = (rule: AlertRule) =>
    confirmed(`Delete the alert rule ${rule.name}? Its open incident, if any, is resolved.`, async () => {
      setDone(undefined);
      setError(undefined);
      try {
        await api.call('DELETE', `/account/alert/${rule.id}`);
        setDone(`Deleted the rule ${rule.name}.`);
        if (editing === rule.id) setEditing(undefined);
      } catch (failure) {
        setError((failure as Error).message);
      }
      rules.reload();
    });
  const edited = rules.data?.find((rule) => rule.id === editing);
  return html`<section aria-labelledby="alerts-title">
    <h1 id="alerts-title">Alerts</h1>
    <p class="hint">
      A rule watches a rate or the volume of the account, a sub-account, an IP, a pool or a sending domain, and opens
      an${' '}<a href="#/incidents">incident</a>${' '}when it crosses its line.
    </p>
    <${ErrorNote} message=${error ?? rules.error} />
    ${done && html`<${Status}>${done}</${Status}>`}
    ${rules.loading && html`<${Status}>Loading alert rules…</${Status}>`}
    ${
      rules.data?.length === 0 &&
      html`<${EmptyState}>
        No alert rules yet. An alert rule measures a rate (bounces, spam complaints, unsubscribes, deliveries, opens,
        drops) or the volume of mail over a window, and when it crosses the threshold you set it opens an incident and
        notifies the addresses and the Slack webhook you give. Create one with the form below.
      </${EmptyState}>`
    }
    ${
      rules.data &&
      rules.data.length > 0 &&
      html`<${TableScroll}><table class="list">
        <caption>
          Alert rules
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Watches</th>
            <th scope="col">Parameter</th>
            <th scope="col">Fires when</th>
            <th scope="col">Provider</th>
            <th scope="col">Window</th>
            <th scope="col">Minimum volume</th>
            <th scope="col">State</th>
            <th scope="col">Notifies</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          ${rules.data.map(
            (rule) =>
              html`<${RuleRow}
                key=${rule.id}
                rule=${rule}
                names=${names}
                domains=${domains}
                editing=${editing === rule.id}
                onEdit=${() => (setDone(undefined), setEditing(editing === rule.id ? undefined : rule.id))}
                onDelete=${() => remove(rule)}
              />`,
          )}
        </tbody>
      </table></${TableScroll}>`
    }
    ${
      edited &&
      html`<h2>Edit ${edited.name}</h2>
        <${AlertForm}
          key=${edited.id}
          rule=${edited}
          names=${names}
          domains=${domains}
          onEntityType=${setFormType}
          onSaved=${(rule: AlertRule) => saved(`Saved the rule ${rule.name}.`)}
          onCancel=${() => setEditing(undefined)}
        />`
    }
    <h2>Create an alert rule</h2>
    <${AlertForm}
      names=${names}
      domains=${domains}
      onEntityType=${setFormType}
      onSaved=${(rule: AlertRule) => saved(`Created the rule ${rule.name}.`)}
    />
    <${ProtectionPanel} names=${names} />
  </section>`;
}
