/**
 * Incidents of the account (docs/reputation.md): what the alert rules and the automatic protections
 * opened, open or resolved, newest first, each with its entity by name, what was measured against
 * which line on how much mail, and when (in the viewer's locale); `#/incidents/<id>` shows one
 * (incident-detail.ts). Account sessions only.
 */
import { useState } from 'preact/hooks';
import { shownText } from '../format.js';
import { EmptyState, ErrorNote, html, LocalTime, msOfNs, Status, TableScroll, useApp, useLoad } from '../lib.js';
import { lineText, parameterText, valueText, type Incident } from '../reputation-format.js';
import { formatCount } from '../shaping-format.js';
import { EntityName, useDomainNames } from './entity-names.js';
import { IncidentDetail } from './incident-detail.js';
import { useNames } from './names.js';

/** Incidents a page of the list shows. */
const PAGE_SIZE = 50;

/** The state filter's choices: the API's `status` (0 open, 1 resolved; none for both) and their words. */
const STATES = [
  ['0', 'Open'],
  ['1', 'Resolved'],
  ['', 'Open and resolved'],
] as const;

/** The Incidents page; `arg` is the id of the incident shown whole. */
export function Incidents({ arg }: { arg?: string | undefined }) {
  if (arg !== undefined && /^\d+$/.test(arg)) return html`<${IncidentDetail} id=${Number(arg)} />`;
  return html`<${IncidentList} />`;
}

function IncidentList() {
  const { api } = useApp();
  const names = useNames();
  const [status, setStatus] = useState<string>('0');
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => {
    const query: Record<string, string> = { limit: String(PAGE_SIZE), offset: String(offset) };
    if (status !== '') query.status = status;
    return api.call<Incident[]>('GET', '/account/incident/', { query });
  }, [status, offset]);
  const domains = useDomainNames(
    names,
    (list.data ?? []).some((incident) => incident.entityType === 'domain'),
  );
  const stateWord = STATES.find(([value]) => value === status)?.[1].toLowerCase() ?? '';
  return html`<section aria-labelledby="incidents-title">
    <h1 id="incidents-title">Incidents</h1>
    <form class="inline" aria-label="Filter incidents" onSubmit=${(e: Event) => e.preventDefault()}>
      <label
        >Show
        <select
          value=${status}
          onChange=${(e: Event) => (setStatus((e.target as HTMLSelectElement).value), setOffset(0))}
        >
          ${STATES.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
        </select></label
      >
      <button type="button" class="secondary" onClick=${() => list.reload()}>Refresh</button>
    </form>
    <${ErrorNote} message=${list.error} />
    ${list.loading && html`<${Status}>Loading incidents…</${Status}>`}
    ${
      list.data?.length === 0 &&
      html`<${EmptyState}>
        No ${offset > 0 ? 'more ' : ''}${stateWord === 'open and resolved' ? '' : `${stateWord} `}incidents. An incident
        opens when an <a href="#/alerts">alert rule</a> crosses its line, or when mailplane blocks a sub-account or
        pauses an IP to protect your reputation.
      </${EmptyState}>`
    }
    ${
      list.data &&
      list.data.length > 0 &&
      html`<${TableScroll}><table class="list">
        <caption>
          ${STATES.find(([value]) => value === status)?.[1]} incidents, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Incident</th>
            <th scope="col">State</th>
            <th scope="col">Entity</th>
            <th scope="col">Parameter</th>
            <th scope="col">Measured (line)</th>
            <th scope="col">Sample</th>
            <th scope="col">Started</th>
            <th scope="col">Resolved</th>
          </tr>
        </thead>
        <tbody>
          ${list.data.map(
            (incident) =>
              html`<tr key=${incident.id}>
                <td>
                  <a href=${`#/incidents/${incident.id}`}
                    >${shownText(incident.summary) || `Incident ${incident.id}`}</a
                  >
                </td>
                <td>
                  <span class=${incident.state === 'open' ? 'badge status-hard_bounced' : 'badge status-delivered'}
                    >${incident.state}</span
                  >
                </td>
                <td>
                  <${EntityName}
                    type=${incident.entityType}
                    value=${incident.entityValue}
                    names=${names}
                    domains=${domains}
                  />
                </td>
                <td>${parameterText(incident.parameter)}</td>
                <td>
                  ${valueText(incident.parameter, incident.measuredValue)}
                  <span class="hint">line: ${lineText(incident.parameter, incident.threshold)}</span>
                </td>
                <td>${formatCount(incident.sampleSize)} processed</td>
                <td><${LocalTime} ms=${msOfNs(incident.created)} /></td>
                <td>${incident.closed === null ? '—' : html`<${LocalTime} ms=${msOfNs(incident.closed)} />`}</td>
              </tr>`,
          )}
        </tbody>
      </table></${TableScroll}>`
    }
    ${
      (offset > 0 || list.data?.length === PAGE_SIZE) &&
      html`<div class="pager actions">
        <button
          type="button"
          class="secondary"
          disabled=${offset === 0}
          onClick=${() => setOffset(Math.max(0, offset - PAGE_SIZE))}
        >
          Newer
        </button>
        <button
          type="button"
          class="secondary"
          disabled=${list.data?.length !== PAGE_SIZE}
          onClick=${() => setOffset(offset + PAGE_SIZE)}
        >
          Older
        </button>
      </div>`
    }
  </section>`;
}
