/**
 * IPs and pools of the account (docs/ip-pools.md, docs/routing.md), read-only: each IP's state and
 * warmup stage per mailbox provider, each pool's routing strategy, overflow pool and members.
 */
import { formatNs, warmupStages } from '../format.js';
import { ErrorNote, html, Status, useApp, useLoad } from '../lib.js';

/** Routing strategy names by `routingStrategy` number. */
const STRATEGIES = ['Round robin', 'Email provider', 'Volume percentage', 'Sending domain'];

interface Ip {
  id: number;
  publicIp: string;
  reverseDnsHostname: string;
  state: string;
  autoWarmupEnabled: boolean;
  autoWarmupStage?: number;
  autoWarmupPlan?: Record<string, unknown>;
  created: number;
}

interface Pool {
  id: number;
  name: string;
  routingStrategy: number;
  shouldOverflow: boolean;
  overflowPoolName: string;
  ips: { publicIp: string }[];
  thirdPartySendingProviders: { name: string }[];
}

/** The IPs and pools page. */
export function IpsAndPools() {
  const { api } = useApp();
  const ips = useLoad(() => api.call<Ip[]>('GET', '/account/ip', { query: { limit: '100' } }), []);
  const pools = useLoad(() => api.call<Pool[]>('GET', '/account/ippool', { query: { limit: '100' } }), []);
  return html`<section aria-labelledby="ips-title">
    <h1 id="ips-title">IPs and pools</h1>
    <${ErrorNote} message=${ips.error ?? pools.error} />
    ${(ips.loading || pools.loading) && html`<${Status}>Loading…</${Status}>`}
    ${ips.data && ips.data.length === 0 && html`<${Status}>No IPs allocated: mail goes out through the default route.</${Status}>`}
    ${ips.data &&
    ips.data.length > 0 &&
    html`<table class="list">
      <caption>IPs</caption>
      <thead><tr><th scope="col">IP</th><th scope="col">Reverse DNS</th><th scope="col">State</th><th scope="col">Warmup</th><th scope="col">Added</th></tr></thead>
      <tbody>
        ${ips.data.map(
          (ip) => html`<tr>
            <td>${ip.publicIp}</td><td>${ip.reverseDnsHostname || '—'}</td><td>${ip.state}</td>
            <td>${ip.autoWarmupEnabled ? html`on${ip.autoWarmupStage !== undefined ? `, stage ${ip.autoWarmupStage}` : ''}
                  <ul class="stages">${warmupStages(ip.autoWarmupPlan).map((s) => html`<li>${s.provider}: ${s.text}</li>`)}</ul>` : 'off'}</td>
            <td>${formatNs(ip.created)}</td>
          </tr>`,
        )}
      </tbody>
    </table>`}
    ${pools.data && pools.data.length === 0 && html`<${Status}>No IP pools.</${Status}>`}
    ${pools.data &&
    pools.data.length > 0 &&
    html`<table class="list">
      <caption>IP pools</caption>
      <thead><tr><th scope="col">Pool</th><th scope="col">Strategy</th><th scope="col">Overflow</th><th scope="col">Members</th></tr></thead>
      <tbody>
        ${pools.data.map(
          (p) => html`<tr>
            <td>${p.name}</td>
            <td>${STRATEGIES[p.routingStrategy] ?? p.routingStrategy}</td>
            <td>${p.shouldOverflow ? `to ${p.overflowPoolName}` : 'no'}</td>
            <td>${[...p.ips.map((ip) => ip.publicIp), ...p.thirdPartySendingProviders.map((t) => t.name)].join(', ') || '—'}</td>
          </tr>`,
        )}
      </tbody>
    </table>`}
  </section>`;
}
