/**
 * The overview's comparison: every sub-account's (and each chosen group's) totals of the last 30
 * days side by side, one row each, as a plain table (row and column headers, a caption) that
 * keyboards and screen readers read like any other. The groups are offered as checkboxes, from the
 * names with mail in the range (`GET /account/stat/groups`), up to {@link MAX_COMPARED_GROUPS}.
 */
import { useState } from 'preact/hooks';
import {
  counterTotals,
  CHART_SERIES,
  formatCount,
  inBatches,
  lastDays,
  MAX_COMPARED_GROUPS,
  type StatCounters,
} from '../format.js';
import { ErrorNote, html, Status, useApp, useLoad } from '../lib.js';

/** A row of the comparison: what it counts and its totals. */
interface Row {
  kind: 'Sub-account' | 'Group';
  name: string;
  totals: { label: string; total: number }[];
}

/** The comparison table, for an account session; `subAccounts` and `groupNames` are the overview's lists. */
export function Comparison({
  subAccounts,
  groupNames,
}: {
  subAccounts: readonly { id: number; name: string }[];
  groupNames: readonly string[];
}) {
  const { api } = useApp();
  const [draft, setDraft] = useState<string[]>([]);
  const [groups, setGroups] = useState<string[]>([]);
  const rows = useLoad(async () => {
    const range = lastDays(Date.now(), 30);
    const subs = await inBatches(subAccounts, 4, async (s): Promise<Row> => {
      const counters = await api.call<StatCounters>('GET', `/account/subaccount/stat/${s.id}/aggregate`, {
        query: range,
      });
      return { kind: 'Sub-account', name: s.name, totals: counterTotals(counters) };
    });
    const named = await inBatches(groups, 4, async (group): Promise<Row> => {
      const counters = await api.call<StatCounters>('GET', '/account/stat/aggregate/group', {
        query: { ...range, group },
      });
      return { kind: 'Group', name: group, totals: counterTotals(counters) };
    });
    return [...subs, ...named];
  }, [subAccounts, groups.join(',')]);
  const compare = (event: Event) => {
    event.preventDefault();
    setGroups(groupNames.filter((name) => draft.includes(name)));
  };
  const toggle = (name: string) => setDraft(draft.includes(name) ? draft.filter((n) => n !== name) : [...draft, name]);
  return html`<section aria-labelledby="compare-title">
    <h2 id="compare-title">By sub-account and group</h2>
    ${
      groupNames.length === 0
        ? html`<${Status}>No groups with mail in the last 30 days.</${Status}>`
        : html`<form class="filters" aria-label="Groups to compare" onSubmit=${compare}>
            <fieldset class="toggles" aria-describedby="compare-help">
              <legend>Groups to compare</legend>
              ${groupNames.map(
                (name) =>
                  html`<label class="check"
                    ><input
                      type="checkbox"
                      checked=${draft.includes(name)}
                      disabled=${!draft.includes(name) && draft.length >= MAX_COMPARED_GROUPS}
                      onChange=${() => toggle(name)}
                    />
                    ${name}</label
                  >`,
              )}
            </fieldset>
            <span id="compare-help" class="hint">up to ${MAX_COMPARED_GROUPS}</span>
            <button type="submit">Compare</button>
          </form>`
    }
    <${ErrorNote} message=${rows.error} />
    ${rows.loading && html`<${Status}>Loading the comparison…</${Status}>`}
    ${
      rows.data &&
      (rows.data.length === 0
        ? html`<${Status}>No sub-accounts yet.</${Status}>`
        : html`<table class="list compare">
            <caption>
              Last 30 days, totals by sub-account and group
            </caption>
            <thead>
              <tr>
                <th scope="col">Sub-account or group</th>
                ${CHART_SERIES.map((s) => html`<th scope="col">${s.label}</th>`)}
              </tr>
            </thead>
            <tbody>
              ${rows.data.map(
                (row) =>
                  html`<tr>
                    <th scope="row">${row.kind}: ${row.name}</th>
                    ${row.totals.map((t) => html`<td>${formatCount(t.total)}</td>`)}
                  </tr>`,
              )}
            </tbody>
          </table>`)
    }
  </section>`;
}
