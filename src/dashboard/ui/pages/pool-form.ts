/**
 * The form that creates an IP pool or edits one (docs/ip-pools.md): name, routing strategy and its
 * metadata, overflow and the overflow pool, warmup interval, member IPs and third-party sending
 * providers (TPSPs). It calls
 * `POST /account/ippool` or `PUT /account/ippool/{id}` (with the session's CSRF token, as every
 * change); the API's own validation answers are shown as they come.
 */
import { useState } from 'preact/hooks';
import { poolRequestBody, type PoolDraft } from '../format.js';
import { ErrorNote, html, useApp } from '../lib.js';

/** Routing strategy names by `routingStrategy` number. */
export const STRATEGIES = ['Round robin', 'Email provider', 'Volume percentage', 'Sending domain'];

/** A pool as `GET /account/ippool` answers it (the fields the page uses). */
export interface Pool {
  id: number;
  name: string;
  type: number;
  routingStrategy: number;
  routingMetaData: string;
  shouldOverflow: boolean;
  overflowPoolName: string;
  warmupInterval: number;
  ips: { publicIp: string }[];
  thirdPartySendingProviders: Tpsp[];
}

/** A third-party sending provider as `GET /account/tpsp` answers it (the fields the form uses). */
export interface Tpsp {
  id: number;
  name: string;
}

interface Props {
  /** The pool to edit; none to create one. */
  pool?: Pool;
  pools: readonly Pool[];
  /** The account's allocated IPs, by address. */
  ips: readonly string[];
  /** The account's third-party sending providers. */
  tpsps: readonly Tpsp[];
  onDone: () => void;
  onCancel?: () => void;
}

const draftOf = (pool?: Pool): PoolDraft => ({
  name: pool?.name ?? '',
  routingStrategy: pool?.routingStrategy ?? 0,
  routingMetaData: pool && pool.routingMetaData !== '{}' ? pool.routingMetaData : '',
  shouldOverflow: pool?.shouldOverflow ?? false,
  overflowPoolName: pool?.overflowPoolName ?? '',
  warmupInterval: String(pool?.warmupInterval ?? 24),
  ips: pool?.ips.map((ip) => ip.publicIp) ?? [],
  tpsps: pool?.thirdPartySendingProviders.map((t) => t.id) ?? [],
});

/** The pool form; `pool` set edits it. */
export function PoolForm({ pool, pools, ips, tpsps, onDone, onCancel }: Props) {
  const { api } = useApp();
  const [draft, setDraft] = useState<PoolDraft>(() => draftOf(pool));
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const id = pool ? `pool-${pool.id}` : 'pool-new';
  const what = pool ? `pool ${pool.name}` : 'new pool';
  const set = <K extends keyof PoolDraft>(key: K, value: PoolDraft[K]) => setDraft({ ...draft, [key]: value });
  const value = (event: Event) => (event.target as HTMLInputElement).value;
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const body = poolRequestBody(draft, pool);
      if (pool) await api.call('PUT', `/account/ippool/${pool.id}`, { body });
      else await api.call('POST', '/account/ippool', { body });
      if (!pool) setDraft(draftOf());
      onDone();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const toggleIp = (ip: string) =>
    set('ips', draft.ips.includes(ip) ? draft.ips.filter((x) => x !== ip) : [...draft.ips, ip]);
  const toggleTpsp = (tpsp: number) =>
    set('tpsps', draft.tpsps.includes(tpsp) ? draft.tpsps.filter((x) => x !== tpsp) : [...draft.tpsps, tpsp]);
  return html`<form class="pool-form" aria-label=${pool ? `Edit ${what}` : 'Create IP pool'} onSubmit=${submit}>
    <label
      >Pool name
      <input
        type="text"
        required
        maxlength="100"
        value=${draft.name}
        disabled=${pool?.type === 0}
        onInput=${(e: Event) => set('name', value(e))}
    /></label>
    <label
      >Routing strategy
      <select value=${String(draft.routingStrategy)} onChange=${(e: Event) => set('routingStrategy', Number(value(e)))}>
        ${STRATEGIES.map((label, n) => html`<option value=${String(n)}>${label}</option>`)}
      </select>
    </label>
    ${
      draft.routingStrategy !== 0 &&
      html`<label
          >Routing metadata (JSON)
          <textarea
            rows="3"
            aria-describedby=${`${id}-meta-help`}
            value=${draft.routingMetaData}
            onInput=${(e: Event) => set('routingMetaData', value(e))}
          ></textarea>
        </label>
        <span id=${`${id}-meta-help`} class="hint">the shape its strategy needs, see docs/ip-pools.md</span>`
    }
    <label class="check"
      ><input
        type="checkbox"
        checked=${draft.shouldOverflow}
        onChange=${(e: Event) => set('shouldOverflow', (e.target as HTMLInputElement).checked)}
      />
      Overflow to another pool</label
    >
    ${
      draft.shouldOverflow &&
      html`<label
        >Overflow pool
        <select value=${draft.overflowPoolName} onChange=${(e: Event) => set('overflowPoolName', value(e))}>
          <option value="">Choose a pool</option>
          ${pools.filter((p) => p.id !== pool?.id).map((p) => html`<option value=${p.name}>${p.name}</option>`)}
        </select>
      </label>`
    }
    <label
      >Warmup interval (hours)
      <input
        type="number"
        min="1"
        max="720"
        value=${draft.warmupInterval}
        onInput=${(e: Event) => set('warmupInterval', value(e))}
    /></label>
    ${
      ips.length > 0 &&
      html`<fieldset class="toggles">
        <legend>Member IPs</legend>
        ${ips.map((ip) => html`<label class="check"><input type="checkbox" checked=${draft.ips.includes(ip)} onChange=${() => toggleIp(ip)} /> ${ip}</label>`)}
      </fieldset>`
    }
    ${
      tpsps.length > 0 &&
      html`<fieldset class="toggles">
        <legend>Third-party sending providers</legend>
        ${tpsps.map((t) => html`<label class="check"><input type="checkbox" checked=${draft.tpsps.includes(t.id)} onChange=${() => toggleTpsp(t.id)} /> ${t.name}</label>`)}
      </fieldset>`
    }
    <${ErrorNote} message=${error} />
    <button type="submit" disabled=${busy}>${pool ? `Save ${what}` : 'Create pool'}</button>
    ${onCancel && html`<button type="button" class="secondary" onClick=${onCancel}>Cancel</button>`}
  </form>`;
}
