/**
 * Overview: today's counters and the last 30 days as a chart, for the whole account, one
 * sub-account or one group (the groups with mail in the last 30 days, from `GET /account/stat/groups`);
 * for an account, every sub-account's and the chosen groups' totals side by side.
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

const Totals = ({ days, caption }: { days: readonly DayStat[]; caption: string }) =>
  html`<table class="totals">
    <caption>
      ${caption}
    </caption>
    <thead>
      <tr>
        ${seriesTotals(days).map((t) => html`<th scope="col">${t.label}</th>`)}
      </tr>
    </thead>
    <tbody>
      <tr>
        ${seriesTotals(days).map((t) => html`<td>${formatCount(t.total)}</td>`)}
      </tr>
    </tbody>
  </table>`;

/** The overview page. */
export function Overview() {
  const { api, session } = useApp();
  const [scope, setScope] = useState('all');
  const groups = useLoad(
    () =>
      session.kind === 'account'
        ? api.call<string[]>('GET', '/account/stat/groups', { query: lastDays(Date.now(), 30) })
        : Promise.resolve([]),
    [],
  );
  const subAccounts = useLoad(
    () =>
      session.kind === 'account'
        ? api.call<SubAccountItem[]>('GET', '/account/subaccount', { query: { limit: '100' } })
        : Promise.resolve([]),
    [],
  );
  const stats = useLoad(async () => {
    const range = lastDays(Date.now(), 30);
    const { path, query } = statPath(session.kind, scope);
    const days = await api.call<DayStat[]>('GET', path, { query: { ...query, ...range } });
    return { days, today: days.slice(-1) };
  }, [scope]);
  return html`<section aria-labelledby="overview-title">
    <h1 id="overview-title">Overview</h1>
    ${
      session.kind === 'account' &&
      html`<div class="filters">
        <label
          >Scope
          <select value=${scope} onChange=${(e: Event) => setScope((e.target as HTMLSelectElement).value)}>
            <option value="all">Whole account</option>
            ${(subAccounts.data ?? []).map((s) => html`<option value=${`sub:${s.id}`}>Sub-account: ${s.name}</option>`)}
            ${(groups.data ?? []).map((g) => html`<option value=${`group:${g}`}>Group: ${g}</option>`)}
          </select>
        </label>
      </div>`
    }
    <${ErrorNote} message=${stats.error ?? groups.error} />
    ${stats.loading && html`<${Status}>Loading statistics…</${Status}>`}
    ${
      stats.data &&
      html`<${Totals} days=${stats.data.today} caption="Today (UTC)" />
        <${DailyChart} days=${stats.data.days} title="Last 30 days" />
        <${Totals} days=${stats.data.days} caption="Last 30 days, totals" />`
    }
    ${session.kind === 'account' && subAccounts.data && groups.data && html`<${Comparison} subAccounts=${subAccounts.data} groupNames=${groups.data} />`}
  </section>`;
}
