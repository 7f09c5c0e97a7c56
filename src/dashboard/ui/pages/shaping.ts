/**
 * Traffic shaping of the account (docs/shaping.md): the state of each sending source × destination
 * (rates and connections in force, slots booked ahead, a suspension and the reply that caused it)
 * with a confirmed Resume, and the rule tables (shaping-rules.ts). Account sessions only.
 */
import { useState } from 'preact/hooks';
import { shownText } from '../format.js';
import { confirmed, EmptyState, ErrorNote, html, LocalTime, Status, TableScroll, useApp, useLoad } from '../lib.js';
import { limitText, parseStateSource, shortReply } from '../shaping-format.js';
import { IpLink, useNames, type Names } from './names.js';
import type { Tpsp } from './pool-form.js';
import { ShapingRules } from './shaping-rules.js';

/** One source × destination as `GET /account/shaping/state` answers it. */
interface ShapingState {
  key: string;
  source: string;
  destination: string;
  factor: number;
  ratePerMinute: number | null;
  currentRatePerMinute: number | null;
  connectionsInUse: number;
  maxConnections: number | null;
  slotsBookedAhead: number;
  suspendedUntil: number | null;
  reason: string | null;
  lastReply: string | null;
  lastReplyAt: number | null;
}

/** A state's source in words: an IP by its address, a TPSP by its name. */
function sourceLabel(source: string, names: Names, tpsps: readonly Tpsp[]): string {
  const parsed = parseStateSource(source);
  if (parsed.kind === 'ip') return names.ips.get(parsed.id) ?? `IP ${parsed.id}`;
  if (parsed.kind === 'tpsp') return tpsps.find((t) => t.id === parsed.id)?.name ?? `TPSP ${parsed.id}`;
  return "the server's own address";
}

/** Why a source was slowed or suspended: the reason's code and the receiver's reply, long ones folded. */
function Why({ state }: { state: ShapingState }) {
  if (state.reason === null && state.lastReply === null) return html`—`;
  // The reply is the receiver's text: invisible and direction characters are written out.
  const reply = shortReply(shownText(state.lastReply ?? ''));
  return html`${state.reason !== null && html`<span class="badge">${state.reason}</span>`}
  ${
    reply.cut
      ? html`<details class="reply">
          <summary><span class="folded">${reply.short}</span><span class="unfolded">The whole reply</span></summary>
          <span>${shownText(state.lastReply ?? '')}</span>
        </details>`
      : reply.short !== '' && html`<span class="reply">${reply.short}</span>`
  }
  ${state.lastReplyAt !== null && html`<span class="hint">at <${LocalTime} ms=${state.lastReplyAt} /></span>`}`;
}

/** The Shaping page. */
export function Shaping() {
  const { api } = useApp();
  const names = useNames();
  const states = useLoad(
    () => api.call<ShapingState[]>('GET', '/account/shaping/state', { query: { limit: '100' } }),
    [],
  );
  const tpsps = useLoad(() => api.call<Tpsp[]>('GET', '/account/tpsp', { query: { limit: '100' } }), []);
  const [error, setError] = useState<string | undefined>();
  const [resumed, setResumed] = useState<string | undefined>();
  const label = (state: ShapingState) => sourceLabel(state.source, names, tpsps.data ?? []);
  const resume = (state: ShapingState) =>
    confirmed(
      `Resume ${label(state)} to ${state.destination}? Mail goes out at the rule's full rate again.`,
      async () => {
        setError(undefined);
        setResumed(undefined);
        try {
          await api.call('POST', '/account/shaping/state/resume', { body: { key: state.key } });
          setResumed(`Resumed ${label(state)} to ${state.destination}.`);
        } catch (failure) {
          setError((failure as Error).message);
        }
        states.reload();
      },
    );
  return html`<section aria-labelledby="shaping-title">
    <h1 id="shaping-title">Traffic shaping</h1>
    <p class="hint">
      Each sending IP keeps to the limits of the rules below for each destination, and slows down or stops when a
      mailbox provider pushes back.
    </p>
    <div class="row-actions">
      <h2>Sources and destinations</h2>
      <button type="button" class="secondary" onClick=${() => states.reload()}>Refresh</button>
    </div>
    <${ErrorNote} message=${error ?? states.error ?? tpsps.error} />
    ${resumed && html`<${Status}>${resumed}</${Status}>`}
    ${states.loading && html`<${Status}>Loading shaping state…</${Status}>`}
    ${
      states.data?.length === 0 &&
      html`<${EmptyState}>
        Nothing is being shaped yet. Traffic shaping paces each sending IP to each mailbox provider (connections,
        messages a minute) and slows it down or suspends it when the provider answers with a throttling or blocking
        reply. A row appears here once mail flows to a destination that has a limit.
      </${EmptyState}>`
    }
    ${
      states.data &&
      states.data.length > 0 &&
      html`<${TableScroll}><table class="list shaping">
        <caption class="visually-hidden">
          Sources and destinations, most recently active first
        </caption>
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">Destination</th>
            <th scope="col">Messages a minute (now / rule)</th>
            <th scope="col">Connections (in use / max)</th>
            <th scope="col">Slots booked ahead</th>
            <th scope="col">Suspended until</th>
            <th scope="col">Why</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          ${states.data.map((state) => {
            const source = parseStateSource(state.source);
            return html`<tr key=${state.key}>
              <td>${source.kind === 'ip' ? html`<${IpLink} id=${source.id} names=${names} />` : label(state)}</td>
              <td><code>${state.destination}</code></td>
              <td>
                ${limitText(state.currentRatePerMinute)} / ${limitText(state.ratePerMinute)}
                ${state.factor < 1 && html`<span class="hint">slowed to ${Math.round(state.factor * 1000) / 10}%</span>`}
              </td>
              <td>${state.connectionsInUse} / ${limitText(state.maxConnections)}</td>
              <td>${state.slotsBookedAhead}</td>
              <td>${state.suspendedUntil === null ? '—' : html`<${LocalTime} ms=${state.suspendedUntil} />`}</td>
              <td><${Why} state=${state} /></td>
              <td>
                ${
                  (state.suspendedUntil !== null || state.factor < 1) &&
                  html`<button
                    type="button"
                    class="danger"
                    aria-label=${`Resume ${label(state)} to ${state.destination}`}
                    onClick=${() => resume(state)}
                  >
                    Resume
                  </button>`
                }
              </td>
            </tr>`;
          })}
        </tbody>
      </table></${TableScroll}>`
    }
    <${ShapingRules} ips=${[...names.ips.values()]} tpsps=${tpsps.data ?? []} />
  </section>`;
}
