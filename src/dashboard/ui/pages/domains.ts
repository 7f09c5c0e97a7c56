/**
 * Domains of a sub-account: add one, the records to publish with copy buttons, each record's
 * verification state and failure reason, a re-check, and DKIM key rotation (every DKIM record to
 * publish or keep during one, and a way to abandon it). An account session picks the sub-account
 * (its calls then act as that sub-account through the dashboard's API path).
 */
import { useState } from 'preact/hooks';
import { formatNs } from '../format.js';
import { CopyButton, EmptyState, ErrorNote, html, Status, TableScroll, useApp, useLoad } from '../lib.js';
import { useActAs } from './act-as.js';

interface DnsRecord {
  host: string;
  type: string;
  textValue: string;
}

/** One of `dkimRecords`: the signing key's, a new key's waiting for its record, or a replaced key's still listed. */
interface DkimRecord extends DnsRecord {
  state: 'active' | 'pending' | 'retiring';
  verified: boolean;
  failureReason?: string;
  retireAt?: number | string;
}

/** A domain as the API answers it (the fields shown). */
interface Domain {
  id: number;
  name: string;
  verified: boolean;
  dkimRecords: DkimRecord[];
  [field: string]: unknown;
}

/** The records of a domain besides DKIM: its wire field, label, verified flag and failure reason fields. */
const RECORDS = [
  { field: 'returnPath', label: 'Return-Path', verified: 'returnPathVerified', reason: 'returnPathFailureReason' },
  { field: 'spf', label: 'SPF', verified: 'spfVerified', reason: '' },
  { field: 'track', label: 'Tracking', verified: 'trackVerified', reason: 'trackFailureReason' },
  { field: 'dmarc', label: 'DMARC', verified: 'dmarcVerified', reason: 'dmarcFailureReason' },
];

/** A row of the records table: what to publish, whether it was found, why not, and what to know. */
interface RecordRow {
  label: string;
  record: DnsRecord;
  found: boolean;
  /** Why the last check did not find it. */
  problem?: string;
  /** What to do with it. */
  note?: string;
}

const DKIM_LABELS: Record<DkimRecord['state'], string> = {
  active: 'DKIM',
  pending: 'DKIM, new key',
  retiring: 'DKIM, old key',
};

/**
 * The rows of `domain`: every DKIM record (during a rotation the new key's, to publish, and after
 * it the old key's, to keep until it retires), then the others.
 */
function recordRows(domain: Domain): RecordRow[] {
  const dkimProblem = domain.dkimFailureReason as string | undefined;
  const dkim: RecordRow[] = domain.dkimRecords.map((r) => ({
    label: DKIM_LABELS[r.state] ?? 'DKIM',
    record: r,
    found: r.verified,
    problem: r.verified ? undefined : r.state === 'active' ? dkimProblem : r.failureReason,
    note:
      r.state === 'pending'
        ? 'Publish it beside the current one: signing switches to the new key once it is found.'
        : r.state === 'retiring'
          ? `Signing moved to the new key; keep this record until ${formatNs(r.retireAt)}.`
          : undefined,
  }));
  const others = RECORDS.filter((r) => domain[r.field]).map((r) => {
    const found = domain[r.verified] === true;
    return {
      label: r.label,
      record: domain[r.field] as DnsRecord,
      found,
      problem: !found && r.reason ? (domain[r.reason] as string | undefined) : undefined,
    };
  });
  return [...dkim, ...others];
}

function DomainCard({
  domain,
  actAs,
  onChange,
}: {
  domain: Domain;
  actAs: number | undefined;
  onChange: (d: Domain) => void;
}) {
  const { api } = useApp();
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  /** Calls the API on this domain and shows the domain it answers. */
  const act = async (method: string, path: string) => {
    setState({ busy: true });
    try {
      onChange(await api.call<Domain>(method, `/subaccount/domain/${domain.id}${path}`, { actAs }));
      setState({ busy: false });
    } catch (error) {
      setState({ busy: false, error: (error as Error).message });
    }
  };
  const rotating = domain.dkimRecords.some((r) => r.state === 'pending');
  return html`<article class="domain" aria-labelledby=${`domain-${domain.id}`}>
    <h2 id=${`domain-${domain.id}`}>
      ${domain.name}
      <span class=${`badge ${domain.verified ? 'status-delivered' : 'status-deferred'}`}
        >${domain.verified ? 'verified' : 'not verified'}</span
      >
    </h2>
    <${TableScroll}><table class="list records">
      <caption>
        Records to publish for ${domain.name}
      </caption>
      <thead>
        <tr>
          <th scope="col">Record</th>
          <th scope="col">Type</th>
          <th scope="col">Host</th>
          <th scope="col">Value</th>
          <th scope="col">State</th>
        </tr>
      </thead>
      <tbody>
        ${recordRows(domain).map(
          ({ label, record, found, problem, note }) =>
            html`<tr>
              <th scope="row">${label}</th>
              <td>${record.type}</td>
              <td><code>${record.host}</code> <${CopyButton} text=${record.host} label=${`${label} host`} /></td>
              <td>
                <code class="value">${record.textValue}</code>
                <${CopyButton} text=${record.textValue} label=${`${label} value`} />
              </td>
              <td>
                ${found ? html`<span class="badge status-delivered">found</span>` : html`<span class="badge status-deferred">not found</span>`}
                ${problem ? html`<span class="reason">${problem}</span>` : null}
                ${note ? html`<span class="hint">${note}</span>` : null}
              </td>
            </tr>`,
        )}
      </tbody>
    </table></${TableScroll}>
    <div class="actions">
      <button
        type="button"
        onClick=${() => act('POST', '/verify')}
        disabled=${state.busy}
        aria-label=${`Check the DNS records of ${domain.name} now`}
      >
        ${state.busy ? 'Working…' : 'Check DNS now'}
      </button>
      ${
        rotating
          ? html`<button
              type="button"
              class="secondary"
              onClick=${() => act('DELETE', '/dkim/rotate')}
              disabled=${state.busy}
              aria-label=${`Abandon the DKIM key rotation of ${domain.name}`}
            >
              Abandon the DKIM rotation
            </button>`
          : html`<button
              type="button"
              onClick=${() => act('POST', '/dkim/rotate')}
              disabled=${state.busy}
              aria-label=${`Rotate the DKIM key of ${domain.name}`}
            >
              Rotate the DKIM key
            </button>`
      }
    </div>
    <${ErrorNote} message=${state.error} />
  </article>`;
}

/** The domains page; `subAccountId` is the sub-account an account session looks at. */
export function Domains({ subAccountId }: { subAccountId: string | undefined }) {
  const { api } = useApp();
  const { actAs, ready, picker, name: subAccountName } = useActAs('domains', subAccountId);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [changed, setChanged] = useState<Record<number, Domain>>({});
  const list = useLoad(
    () =>
      ready ? api.call<Domain[]>('GET', '/subaccount/domain', { query: { limit: '100' }, actAs }) : Promise.resolve([]),
    [actAs, ready],
  );
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
    ${
      ready &&
      html`<form class="inline" onSubmit=${add} aria-label="Add a domain">
        <label
          >Domain name
          <input
            type="text"
            required
            value=${name}
            placeholder="mail.example.com"
            onInput=${(e: Event) => setName((e.target as HTMLInputElement).value)}
        /></label>
        <button type="submit">Add domain</button>
      </form>`
    }
    <${ErrorNote} message=${error ?? list.error} />
    ${list.loading && html`<${Status}>Loading domains…</${Status}>`}
    ${
      list.data?.length === 0 &&
      !list.loading &&
      ready &&
      html`<${EmptyState}>
        No domains${subAccountName ? ` in ${subAccountName}` : ''} yet. Add the domain you send from above: its DNS
        records to publish appear here, and mail from it can go out once they are found.
      </${EmptyState}>`
    }
    ${(list.data ?? []).map((d) => html`<${DomainCard} key=${d.id} domain=${changed[d.id] ?? d} actAs=${actAs} onChange=${(next: Domain) => setChanged({ ...changed, [d.id]: next })} />`)}
  </section>`;
}
