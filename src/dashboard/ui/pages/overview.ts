/**
 * Overview: today's counters and the last 30 days as a chart, for the whole account, one
 * sub-account or one group; for an account, every sub-account's and named group's totals side by side.
 */
import { useState } from 'preact/hooks';
import { DailyChart } from '../chart.js';
import { formatCount, lastDays, seriesTotals, type DayStat } from '../format.js';
import { ErrorNote, html, Status, useApp, useLoad } from '../lib.js';
import { Comparison } from './overview-compare.js';

interface SubAccountItem {
  id: number;
  name: string;
}

/** The `/stat` path of a scope: the account, a sub-account (`sub:<id>`) or a group (`group:<name>`). */
function statPath(kind: string | undefined, scope: string): { path: string; query: Record<string, string> } {
  if (kind === 'subaccount') return { path: '/subaccount/stat', query: {} };
  if (scope.startsWith('sub:')) return { path: `/account/subaccount/stat/${scope.slice(4)}`, query: {} };
  if (scope.startsWith('group:')) return { path: '/account/stat/group', query: { group: scope.slice(6) } };
  return { path: '/account/stat', query: {} };
}

const Totals = ({ days, caption }: { days: readonly DayStat[]; caption: string }) => html`<table class="totals">
  <caption>${caption}</caption>
  <thead><tr>${seriesTotals(days).map((t) => html`<th scope="col">${t.label}</th>`)}</tr></thead>
  <tbody><tr>${seriesTotals(days).map((t) => html`<td>${formatCount(t.total)}</td>`)}</tr></tbody>
</table>`;

/** The overview page. */
export function Overview() {
  const { api, session } = useApp();
  const [scope, setScope] = useState('all');
  const [group, setGroup] = useState('');
  const subAccounts = useLoad(
    () => (session.kind === 'account' ? api.call<SubAccountItem[]>('GET', '/account/subaccount', { query: { limit: '100' } }) : Promise.resolve([])),
    [],
  );
  const stats = useLoad(async () => {
    const range = lastDays(Date.now(), 30);
    const { path, query } = statPath(session.kind, scope);
    const days = await api.call<DayStat[]>('GET', path, { query: { ...query, ...range } });
    return { days, today: days.slice(-1) };
  }, [scope]);
  const chooseGroup = (event: Event) => {
    event.preventDefault();
    setScope(group.trim() === '' ? 'all' : `group:${group.trim()}`);
  };
  return html`<section aria-labelledby="overview-title">
    <h1 id="overview-title">Overview</h1>
    ${session.kind === 'account' &&
    html`<div class="filters">
      <label>Scope
        <select value=${scope.startsWith('group:') ? 'all' : scope} onChange=${(e: Event) => setScope((e.target as HTMLSelectElement).value)}>
          <option value="all">Whole account</option>
          ${(subAccounts.data ?? []).map((s) => html`<option value=${`sub:${s.id}`}>Sub-account: ${s.name}</option>`)}
        </select>
      </label>
      <form onSubmit=${chooseGroup} class="inline">
        <label>Group <input type="text" value=${group} onInput=${(e: Event) => setGroup((e.target as HTMLInputElement).value)} /></label>
        <button type="submit">Show group</button>
      </form>
    </div>`}
    <${ErrorNote} message=${stats.error} />
    ${stats.loading && html`<${Status}>Loading statistics…</${Status}>`}
    ${stats.data &&
    html`<${Totals} days=${stats.data.today} caption="Today (UTC)" />
      <${DailyChart} days=${stats.data.days} title="Last 30 days" />
      <${Totals} days=${stats.data.days} caption="Last 30 days, totals" />`}
    ${session.kind === 'account' && subAccounts.data && html`<${Comparison} subAccounts=${subAccounts.data} />`}
  </section>`;
}
