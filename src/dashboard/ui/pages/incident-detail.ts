/**
 * One incident whole (`#/incidents/<id>`, docs/reputation.md): what was measured against which line,
 * on how much mail, when it started and ended, its summary and timeline; and the operator's actions,
 * each confirmed and followed by reading the incident again: Resolve; Unblock when it is about a
 * sub-account that is blocked; Resume when it is about a source traffic shaping suspended (its topic
 * is `pause:<shaping key>`).
 */
import { useState } from 'preact/hooks';
import { shownText } from '../format.js';
import { confirmed, ErrorNote, html, LocalTime, msOfNs, Status, useApp, useLoad } from '../lib.js';
import {
  lineText,
  parameterText,
  pauseKeyOf,
  providerText,
  valueText,
  windowText,
  type Incident,
  type SuspendableState,
} from '../reputation-format.js';
import { formatCount } from '../shaping-format.js';
import { EntityName, useDomainNames } from './entity-names.js';
import { useNames } from './names.js';

/** Who resolved an incident, in words. */
const RESOLVERS: Record<string, string> = {
  mailplane: 'by mailplane (the value stayed on the right side of the line for the window)',
  operator: 'by an operator',
  'alert-deleted': 'when its rule was deleted',
};

/** What the page reads besides the incident: its blocked sub-account, its suspended shaping source. */
interface Around {
  blocked: { id: number; name: string; reason: string } | undefined;
  suspended: (SuspendableState & { key: string }) | undefined;
}

/** The incident `id` and its actions. */
export function IncidentDetail({ id }: { id: number }) {
  const { api } = useApp();
  const names = useNames();
  const incident = useLoad(() => api.call<Incident>('GET', `/account/incident/${id}`), [id]);
  const data = incident.data;
  const pauseKey = pauseKeyOf(data?.topic);
  const around = useLoad(async (): Promise<Around> => {
    if (!data) return { blocked: undefined, suspended: undefined };
    const [sub, states] = await Promise.all([
      data.entityType === 'subAccount'
        ? api.call<{ id: number; name: string; blocked: boolean; block_reason: string }>(
            'GET',
            `/account/subaccount/${data.entityValue}`,
          )
        : undefined,
      pauseKey === undefined
        ? undefined
        : api.call<(SuspendableState & { key: string })[]>('GET', '/account/shaping/state', {
            query: { limit: '100' },
          }),
    ]);
    return {
      blocked: sub?.blocked ? { id: sub.id, name: sub.name, reason: sub.block_reason } : undefined,
      suspended: states?.find((state) => state.key === pauseKey && state.suspendedUntil !== null),
    };
  }, [data]);
  const domains = useDomainNames(names, data?.entityType === 'domain');
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState<string | undefined>();
  /** Runs an action once confirmed, says what it did, and reads the incident again. */
  const act = (question: string, work: () => Promise<unknown>, said: string) =>
    confirmed(question, async () => {
      setError(undefined);
      setDone(undefined);
      try {
        await work();
        setDone(said);
      } catch (failure) {
        setError((failure as Error).message);
      }
      incident.reload();
      names.reload();
    });
  const blocked = around.data?.blocked;
  const suspended = around.data?.suspended;
  return html`<section aria-labelledby="incident-title">
    <p><a href="#/incidents">← All incidents</a></p>
    <h1 id="incident-title">Incident ${id}</h1>
    <${ErrorNote} message=${error ?? incident.error ?? around.error} />
    ${done && html`<${Status}>${done}</${Status}>`}
    ${incident.loading && html`<${Status}>Loading the incident…</${Status}>`}
    ${
      data &&
      html`<p class="summary">${shownText(data.summary)}</p>
        <dl class="facts">
          <dt>State</dt>
          <dd>
            <span class=${data.state === 'open' ? 'badge status-hard_bounced' : 'badge status-delivered'}
              >${data.state}</span
            >
          </dd>
          <dt>Entity</dt>
          <dd>
            <${EntityName} type=${data.entityType} value=${data.entityValue} names=${names} domains=${domains} />
          </dd>
          <dt>Measured</dt>
          <dd>
            ${`${parameterText(data.parameter)} ${valueText(data.parameter, data.measuredValue)}; `}
            ${`the line: ${lineText(data.parameter, data.threshold)}`}
          </dd>
          <dt>Sample</dt>
          <dd>${formatCount(data.sampleSize)} messages processed over ${windowText(data.windowHours)}</dd>
          <dt>Provider</dt>
          <dd>${providerText(data.provider)}</dd>
          <dt>Rule</dt>
          <dd>
            ${data.alertId === null ? 'none (an automatic protection, or a deleted rule)' : html`<a href="#/alerts">alert rule ${data.alertId}</a>`}
          </dd>
          <dt>Started</dt>
          <dd><${LocalTime} ms=${msOfNs(data.created)} /></dd>
          <dt>Resolved</dt>
          <dd>
            ${data.closed === null ? 'not yet' : html`<${LocalTime} ms=${msOfNs(data.closed)} /> ${RESOLVERS[data.resolvedBy ?? ''] ?? ''}`}
          </dd>
        </dl>
        <div class="actions">
          ${
            data.state === 'open' &&
            html`<button
              type="button"
              class="danger"
              onClick=${() =>
                act(
                  'Resolve this incident? It closes now; a new one opens if the line is crossed again.',
                  () => api.call('POST', `/account/incident/${id}/resolve`),
                  'Resolved the incident.',
                )}
            >
              Resolve
            </button>`
          }
          ${
            blocked &&
            html`<button
              type="button"
              class="danger"
              aria-label=${`Unblock ${blocked.name}`}
              onClick=${() =>
                act(
                  `Unblock ${blocked.name}? Its API key and SMTP credentials send again.`,
                  () => api.call('PUT', `/account/subaccount/${blocked.id}`, { body: { blocked: false } }),
                  `Unblocked ${blocked.name}.`,
                )}
            >
              Unblock
            </button>`
          }
          ${
            suspended &&
            html`<button
              type="button"
              class="danger"
              onClick=${() =>
                act(
                  'Resume this source? Mail goes out to that provider at the rule\u2019s full rate again.',
                  () => api.call('POST', '/account/shaping/state/resume', { body: { key: suspended.key } }),
                  'Resumed the source.',
                )}
            >
              Resume
            </button>`
          }
        </div>
        <h2>Timeline</h2>
        <ol class="timeline">
          ${data.timeline.map(
            (entry) =>
              html`<li
                class=${entry.action === 'opened' || entry.action === 'blocked' || entry.action === 'paused' ? 'problem' : ''}
              >
                <strong>${entry.action}</strong> by ${entry.actor}, <${LocalTime} ms=${msOfNs(entry.at)} />
                ${entry.detail !== '' && html`<div>${shownText(entry.detail)}</div>`}
              </li>`,
          )}
        </ol>`
    }
  </section>`;
}
