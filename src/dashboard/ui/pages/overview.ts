/**
 * Overview: for the whole account, one sub-account or one group (the groups with mail in the last
 * 30 days, from `GET /account/stat/groups`), over a period from today to the last 365 days: where
 * the processed mail went (final outcomes and what is still in flight, adding up to processed),
 * every counter of the daily record, the spec's derived rates, and the days as a chart; for an
 * account, every sub-account's and the chosen groups' totals side by side.
 */
import { useState } from 'preact/hooks';
import { DailyChart } from '../chart.js';
import { inBatches, lastDays } from '../format.js';
import { ErrorNote, html, Status, TableScroll, useApp, useLoad } from '../lib.js';
import { subAccountOptionText } from './names.js';
import {
  COUNTERS,
  counterOf,
  dailyRanges,
  derivedRates,
  localCount,
  localRate,
  outcomeParts,
  PERIODS,
  type DayStat,
  type StatCounters,
} from '../stats.js';
import { Comparison } from './overview-compare.js';

interface SubAccountItem {
  id: number;
  name: string;
  blocked: boolean;
}

/** The daily and aggregate `/stat` paths of a scope: the account, a sub-account (`sub:<id>`) or a group (`group:<name>`). */
function statPaths(
  kind: string | undefined,
  scope: string,
): { daily: string; total: string; query: Record<string, string> } {
  if (kind === 'subaccount') return { daily: '/subaccount/stat', total: '/subaccount/stat/aggregate', query: {} };
  if (scope.startsWith('sub:')) {
    const id = scope.slice(4);
    return { daily: `/account/subaccount/stat/${id}`, total: `/account/subaccount/stat/${id}/aggregate`, query: {} };
  }
  if (scope.startsWith('group:'))
    return { daily: '/account/stat/group', total: '/account/stat/aggregate/group', query: { group: scope.slice(6) } };
  return { daily: '/account/stat', total: '/account/stat/aggregate', query: {} };
}

/** What the figures show: today's record and, for a longer period, the period's (the server's aggregate). */
interface Figures {
  days: DayStat[];
  columns: { label: string; stat: StatCounters }[];
}

/** One row of a figures table: a header, and a cell per column. */
const FigureRow = ({ id, label, hint, cells }: { id: string; label: string; hint?: string; cells: string[] }) =>
  html`<tr data-figure=${id}>
    <th scope="row">${label}${hint && html`<span class="hint figure-hint">${hint}</span>`}</th>
    ${cells.map((cell) => html`<td>${cell}</td>`)}
  </tr>`;

const FiguresHead = ({ columns }: { columns: Figures['columns'] }) =>
  html`<thead>
    <tr>
      <td></td>
      ${columns.map((c) => html`<th scope="col">${c.label}</th>`)}
    </tr>
  </thead>`;

/** The three tables: where the mail went, every counter, the rates. */
function FigureTables({ columns }: { columns: Figures['columns'] }) {
  const outcomes = columns.map((c) => outcomeParts(c.stat));
  const rates = columns.map((c) => derivedRates(c.stat));
  const carriedOver = outcomes.some((o) => o.carriedOver > 0);
  return html`<div class="figures">
    <${TableScroll}><table class="totals figures-outcomes">
      <caption>
        Where the processed mail went
      </caption>
      <${FiguresHead} columns=${columns} />
      <tbody>
        ${outcomes[0]!.parts.map(
          (part, i) =>
            html`<${FigureRow}
              id=${part.key}
              label=${part.label}
              cells=${outcomes.map((o) => localCount(o.parts[i]!.count))}
            />`,
        )}
      </tbody>
      <tfoot>
        <${FigureRow}
          id="processed"
          label="Processed (the sum)"
          cells=${columns.map((c) => localCount(counterOf(c.stat, 'processed')))}
        />
      </tfoot>
    </table></${TableScroll}>
    ${
      carriedOver &&
      html`<p class="hint">
        Each counter counts on the day its event happened: outcomes of mail processed on an earlier day (delivered after
        a retry, say) make a day's outcomes more than its processed mail.
      </p>`
    }
    <${TableScroll}><table class="totals figures-counters">
      <caption>
        Every counter of the daily record
      </caption>
      <${FiguresHead} columns=${columns} />
      <tbody>
        ${COUNTERS.map(
          (counter) =>
            html`<${FigureRow}
              id=${counter.key}
              label=${counter.label}
              hint=${counter.meaning}
              cells=${columns.map((c) => localCount(counterOf(c.stat, counter.key)))}
            />`,
        )}
      </tbody>
    </table></${TableScroll}>
    <${TableScroll}><table class="totals figures-rates">
      <caption>
        Rates
      </caption>
      <${FiguresHead} columns=${columns} />
      <tbody>
        ${rates[0]!.map(
          (rate, i) =>
            html`<${FigureRow}
              id=${rate.label}
              label=${rate.label}
              hint=${rate.formula}
              cells=${rates.map((r) => localRate(r[i]!.value))}
            />`,
        )}
      </tbody>
    </table></${TableScroll}>
  </div>`;
}

/** The overview page. */
export function Overview() {
  const { api, session } = useApp();
  const [scope, setScope] = useState('all');
  const [periodDays, setPeriodDays] = useState(30);
  const period = PERIODS.find((p) => p.days === periodDays) ?? PERIODS[2]!;
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
  const stats = useLoad(async (): Promise<Figures> => {
    const now = Date.now();
    const { daily, total, query } = statPaths(session.kind, scope);
    // A daily request covers at most 31 days: a year is 12 of them, a few at a time.
    const chunks = await inBatches(dailyRanges(now, period.days), 4, (range) =>
      api.call<DayStat[]>('GET', daily, { query: { ...query, ...range } }),
    );
    const days = chunks.flat();
    const today = { label: 'Today (UTC)', stat: days[days.length - 1]!.stat };
    if (period.days === 1) return { days, columns: [today] };
    const totals = await api.call<StatCounters>('GET', total, { query: { ...query, ...lastDays(now, period.days) } });
    return { days, columns: [today, { label: period.label, stat: totals }] };
  }, [scope, period.days]);
  return html`<section aria-labelledby="overview-title">
    <h1 id="overview-title">Overview</h1>
    <div class="filters">
      ${
        session.kind === 'account' &&
        html`<label
          >Scope
          <select value=${scope} onChange=${(e: Event) => setScope((e.target as HTMLSelectElement).value)}>
            <option value="all">Whole account</option>
            ${(subAccounts.data ?? []).map((s) => html`<option value=${`sub:${s.id}`}>Sub-account: ${subAccountOptionText(s)}</option>`)}
            ${(groups.data ?? []).map((g) => html`<option value=${`group:${g}`}>Group: ${g}</option>`)}
          </select>
        </label>`
      }
      <label
        >Period
        <select
          value=${String(period.days)}
          onChange=${(e: Event) => setPeriodDays(Number((e.target as HTMLSelectElement).value))}
        >
          ${PERIODS.map((p) => html`<option value=${String(p.days)}>${p.label}</option>`)}
        </select>
      </label>
    </div>
    <${ErrorNote} message=${stats.error ?? groups.error} />
    ${stats.loading && html`<${Status}>Loading statistics…</${Status}>`}
    ${
      stats.data &&
      html`<${FigureTables} columns=${stats.data.columns} />
        <${DailyChart} days=${stats.data.days} title=${period.label} />`
    }
    ${
      session.kind === 'account' &&
      subAccounts.data &&
      groups.data &&
      html`<${Comparison} subAccounts=${subAccounts.data} groupNames=${groups.data} period=${period} />`
    }
  </section>`;
}
