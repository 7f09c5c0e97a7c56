/**
 * IPs and pools of the account (docs/ip-pools.md, docs/routing.md): each IP's state and warmup
 * stage per mailbox provider; each pool's routing strategy, overflow pool and members (IPs and
 * third-party sending providers), with a form to create a pool and one to edit each; allocating
 * IPs to the account and releasing them, deleting a pool (both confirmed). `#/ips/ip-<id>` and
 * `#/ips/pool-<id>` mark that row: the page names elsewhere link to. An IP traffic shaping has
 * suspended for a destination says so ("paused for Gmail").
 */
import { useState } from 'preact/hooks';
import { formatNs, warmupStages } from '../format.js';
import { confirmed, EmptyState, ErrorNote, html, Status, TableScroll, useApp, useLoad } from '../lib.js';
import { pausesOfIp, type SuspendableState } from '../reputation-format.js';
import { useMarkedRow } from './marked-row.js';
import { AllocateIps } from './ip-allocate.js';
import { PoolForm, STRATEGIES, type Pool, type Tpsp } from './pool-form.js';

/** The name of each IP `state` (docs/ip-pools.md). */
const IP_STATES = ['active', 'paused', 'warming up'];

interface Ip {
  id: number;
  publicIp: string;
  reverseDnsHostname: string;
  state: number;
  autoWarmupEnabled: boolean;
  autoWarmupStage?: number;
  autoWarmupPlan?: Record<string, unknown>;
  created: number;
}

/** The IPs and pools page; `arg` names the marked row (`ip-<id>` or `pool-<id>`). */
export function IpsAndPools({ arg }: { arg?: string | undefined }) {
  const { api } = useApp();
  const ips = useLoad(() => api.call<Ip[]>('GET', '/account/ip', { query: { limit: '100' } }), []);
  const pools = useLoad(() => api.call<Pool[]>('GET', '/account/ippool', { query: { limit: '100' } }), []);
  const tpsps = useLoad(() => api.call<Tpsp[]>('GET', '/account/tpsp', { query: { limit: '100' } }), []);
  const shaping = useLoad(
    () => api.call<SuspendableState[]>('GET', '/account/shaping/state', { query: { limit: '100' } }),
    [],
  );
  const [editing, setEditing] = useState<number | undefined>();
  const [error, setError] = useState<string | undefined>();
  const marked = useMarkedRow(arg, ips.data !== undefined && pools.data !== undefined);
  const addresses = (ips.data ?? []).map((ip) => ip.publicIp);
  /** A deletion (an IP released, a pool deleted), then both lists read again: a pool lists its IPs. */
  const remove = async (path: string) => {
    setError(undefined);
    try {
      await api.call('DELETE', path);
    } catch (failure) {
      setError((failure as Error).message);
    }
    ips.reload();
    pools.reload();
  };
  return html`<section aria-labelledby="ips-title">
    <h1 id="ips-title">IPs and pools</h1>
    <${ErrorNote} message=${error ?? ips.error ?? pools.error ?? tpsps.error} />
    ${(ips.loading || pools.loading) && html`<${Status}>Loading…</${Status}>`}
    ${
      ips.data?.length === 0 &&
      html`<${EmptyState}>
        No IPs allocated: mail goes out through the default route. Allocate your dedicated IPs below (Allocate
        IPs), then add them to a pool.
      </${EmptyState}>`
    }
    ${
      ips.data &&
      ips.data.length > 0 &&
      html`<${TableScroll}><table class="list">
        <caption>
          IPs
        </caption>
        <thead>
          <tr>
            <th scope="col">IP</th>
            <th scope="col">Reverse DNS</th>
            <th scope="col">State</th>
            <th scope="col">Warmup</th>
            <th scope="col">Added</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          ${ips.data.map(
            (ip) =>
              html`<tr ...${marked(`ip-${ip.id}`)}>
                <td>${ip.publicIp}</td>
                <td>${ip.reverseDnsHostname || '—'}</td>
                <td>
                  ${IP_STATES[ip.state] ?? `state ${ip.state}`}
                  ${pausesOfIp(shaping.data ?? [], ip.id, Date.now()).map(
                    (destination) => html`<span class="badge status-deferred">paused for ${destination}</span>`,
                  )}
                </td>
                <td>
                  ${
                    ip.autoWarmupEnabled
                      ? html`on${ip.autoWarmupStage !== undefined ? `, stage ${ip.autoWarmupStage}` : ''}
                          <ul class="stages">
                            ${warmupStages(ip.autoWarmupPlan).map((s) => html`<li>${s.provider}: ${s.text}</li>`)}
                          </ul>`
                      : 'off'
                  }
                </td>
                <td>${formatNs(ip.created)}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    onClick=${() => confirmed(`Release ${ip.publicIp}? Pools stop using it.`, () => remove(`/account/ip/${ip.id}`))}
                  >
                    Release ${ip.publicIp}
                  </button>
                </td>
              </tr>`,
          )}
        </tbody>
      </table></${TableScroll}>`
    }
    ${
      pools.data?.length === 0 &&
      html`<${EmptyState}>No IP pools yet. Create one below to choose which IPs a sub-account's mail leaves from.</${EmptyState}>`
    }
    ${
      pools.data &&
      pools.data.length > 0 &&
      html`<${TableScroll}><table class="list">
        <caption>
          IP pools
        </caption>
        <thead>
          <tr>
            <th scope="col">Pool</th>
            <th scope="col">Strategy</th>
            <th scope="col">Overflow</th>
            <th scope="col">Members</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          ${pools.data.map(
            (p) =>
              html`<tr ...${marked(`pool-${p.id}`)}>
                <td>${p.name}</td>
                <td>${STRATEGIES[p.routingStrategy] ?? p.routingStrategy}</td>
                <td>${p.shouldOverflow ? `to ${p.overflowPoolName}` : 'no'}</td>
                <td>
                  ${[...p.ips.map((ip) => ip.publicIp), ...p.thirdPartySendingProviders.map((t) => t.name)].join(', ') || '—'}
                </td>
                <td>
                  <div class="row-actions">
                    <button
                      type="button"
                      class="secondary"
                      aria-expanded=${editing === p.id}
                      onClick=${() => setEditing(editing === p.id ? undefined : p.id)}
                    >
                      Edit ${p.name}
                    </button>
                    ${p.type !== 0 && html`<button type="button" class="danger" onClick=${() => confirmed(`Delete the pool ${p.name}?`, () => remove(`/account/ippool/${p.id}`))}>Delete ${p.name}</button>`}
                  </div>
                </td>
              </tr>`,
          )}
        </tbody>
      </table></${TableScroll}>`
    }
    ${
      pools.data &&
      editing !== undefined &&
      pools.data.some((p) => p.id === editing) &&
      html`<${PoolForm}
        key=${editing}
        pool=${pools.data.find((p) => p.id === editing)}
        pools=${pools.data}
        ips=${addresses}
        tpsps=${tpsps.data ?? []}
        onDone=${() => (setEditing(undefined), pools.reload())}
        onCancel=${() => setEditing(undefined)}
      />`
    }
    ${
      pools.data &&
      html`<h2>Create a pool</h2>
        <${PoolForm} pools=${pools.data} ips=${addresses} tpsps=${tpsps.data ?? []} onDone=${() => pools.reload()} />`
    }
    <h2>Allocate IPs</h2>
    <${AllocateIps} onDone=${() => ips.reload()} />
  </section>`;
}
