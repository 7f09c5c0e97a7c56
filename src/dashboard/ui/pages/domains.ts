/**
 * Domains of a sub-account: add one, the records to publish with copy buttons, each record's
 * verification state and failure reason, and a re-check. An account session picks the sub-account
 * (its calls then act as that sub-account through the dashboard's API path).
 */
import { useState } from 'preact/hooks';
import { CopyButton, ErrorNote, html, Status, useApp, useLoad } from '../lib.js';
import { useActAs } from './act-as.js';

interface DnsRecord {
  host: string;
  type: string;
  textValue: string;
}

/** A domain as the API answers it (the fields shown). */
interface Domain {
  id: number;
  name: string;
  verified: boolean;
  [field: string]: unknown;
}

/** The records of a domain: its wire field, label, verified flag and failure reason fields. */
const RECORDS = [
  { field: 'dkim', label: 'DKIM', verified: 'dkimVerified', reason: 'dkimFailureReason' },
  { field: 'returnPath', label: 'Return-Path', verified: 'returnPathVerified', reason: 'returnPathFailureReason' },
  { field: 'spf', label: 'SPF', verified: 'spfVerified', reason: '' },
  { field: 'track', label: 'Tracking', verified: 'trackVerified', reason: 'trackFailureReason' },
  { field: 'dmarc', label: 'DMARC', verified: 'dmarcVerified', reason: 'dmarcFailureReason' },
];

function DomainCard({ domain, actAs, onChange }: { domain: Domain; actAs: number | undefined; onChange: (d: Domain) => void }) {
  const { api } = useApp();
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const recheck = async () => {
    setState({ busy: true });
    try {
      onChange(await api.call<Domain>('POST', `/subaccount/domain/${domain.id}/verify`, { actAs }));
      setState({ busy: false });
    } catch (error) {
      setState({ busy: false, error: (error as Error).message });
    }
  };
  return html`<article class="domain" aria-labelledby=${`domain-${domain.id}`}>
    <h2 id=${`domain-${domain.id}`}>${domain.name} <span class=${`badge ${domain.verified ? 'status-delivered' : 'status-deferred'}`}>${domain.verified ? 'verified' : 'not verified'}</span></h2>
    <table class="list records">
      <caption>Records to publish for ${domain.name}</caption>
      <thead><tr><th scope="col">Record</th><th scope="col">Type</th><th scope="col">Host</th><th scope="col">Value</th><th scope="col">State</th></tr></thead>
      <tbody>
        ${RECORDS.filter((r) => domain[r.field]).map((r) => {
          const record = domain[r.field] as DnsRecord;
          const ok = domain[r.verified] === true;
          const reason = r.reason ? (domain[r.reason] as string | undefined) : undefined;
          return html`<tr>
            <th scope="row">${r.label}</th>
            <td>${record.type}</td>
            <td><code>${record.host}</code> <${CopyButton} text=${record.host} label=${`${r.label} host`} /></td>
            <td><code class="value">${record.textValue}</code> <${CopyButton} text=${record.textValue} label=${`${r.label} value`} /></td>
            <td>${ok ? html`<span class="badge status-delivered">found</span>` : html`<span class="badge status-deferred">not found</span>`} ${!ok && reason ? html`<span class="reason">${reason}</span>` : null}</td>
          </tr>`;
        })}
      </tbody>
    </table>
    <button type="button" onClick=${recheck} disabled=${state.busy} aria-label=${`Check the DNS records of ${domain.name} now`}>${state.busy ? 'Checking…' : 'Check DNS now'}</button>
    <${ErrorNote} message=${state.error} />
  </article>`;
}

/** The domains page; `subAccountId` is the sub-account an account session looks at. */
export function Domains({ subAccountId }: { subAccountId: string | undefined }) {
  const { api } = useApp();
  const { actAs, ready, picker } = useActAs('domains', subAccountId);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [changed, setChanged] = useState<Record<number, Domain>>({});
  const list = useLoad(() => (ready ? api.call<Domain[]>('GET', '/subaccount/domain', { query: { limit: '100' }, actAs }) : Promise.resolve([])), [actAs, ready]);
  const add = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      await api.call('POST', '/subaccount/domain', { body: { name: name.trim() }, actAs });
      setName('');
      list.reload();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return html`<section aria-labelledby="domains-title">
    <h1 id="domains-title">Domains</h1>
    ${picker}
    ${ready &&
    html`<form class="inline" onSubmit=${add} aria-label="Add a domain">
      <label>Domain name <input type="text" required value=${name} placeholder="mail.example.com" onInput=${(e: Event) => setName((e.target as HTMLInputElement).value)} /></label>
      <button type="submit">Add domain</button>
    </form>`}
    <${ErrorNote} message=${error ?? list.error} />
    ${list.loading && html`<${Status}>Loading domains…</${Status}>`}
    ${(list.data ?? []).map((d) => html`<${DomainCard} key=${d.id} domain=${changed[d.id] ?? d} actAs=${actAs} onChange=${(next: Domain) => setChanged({ ...changed, [d.id]: next })} />`)}
  </section>`;
}
