/**
 * The overview's comparison: every sub-account's (and each chosen group's) totals of the overview's
 * period (every counter of the daily record, from the server's aggregates) side by side, one row each, as a plain table (row and column headers, a caption) that
 * keyboards and screen readers read like any other. The groups are offered as checkboxes, from the
 * names with mail in the range (`GET /account/stat/groups`), up to {@link MAX_COMPARED_GROUPS}.
 */
import { useState } from 'preact/hooks';
import { inBatches, lastDays, MAX_COMPARED_GROUPS } from '../format.js';
import { ErrorNote, html, Status, TableScroll, useApp, useLoad } from '../lib.js';
import { COUNTERS, counterOf, localCount, type StatCounters } from '../stats.js';

/** A row of the comparison: what it counts and its totals. */
interface Row {
  kind: 'Sub-account' | 'Group';
  name: string;
  totals: StatCounters;
}

/**
 * The comparison table, for an account session; `subAccounts` and `groupNames` are the overview's
 * lists, `period` its chosen period (the days ending today, UTC).
 */
export function Comparison({
  subAccounts,
  groupNames,
  period,
}: {
  subAccounts: readonly { id: number; name: string }[];
  groupNames: readonly string[];
  period: { days: number; label: string };
}) {
  const { api } = useApp();
  const [draft, setDraft] = useState<string[]>([]);
  const [groups, setGroups] = useState<string[]>([]);
  const rows = useLoad(async () => {
    const range = lastDays(Date.now(), period.days);
    const subs = await inBatches(subAccounts, 4, async (s): Promise<Row> => {
      const counters = await api.call<StatCounters>('GET', `/account/subaccount/stat/${s.id}/aggregate`, {
        query: range,
      });
      return { kind: 'Sub-account', name: s.name, totals: counters };
    });
    const named = await inBatches(groups, 4, async (group): Promise<Row> => {
      const counters = await api.call<StatCounters>('GET', '/account/stat/aggregate/group', {
        query: { ...range, group },
      });
      return { kind: 'Group', name: group, totals: counters };
    });
    return [...subs, ...named];
  }, [subAccounts, groups.join(','), period.days]);
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
        : html`<${TableScroll}><table class="list compare">
            <caption>
              ${period.label}, totals by sub-account and group
            </caption>
            <thead>
              <tr>
                <th scope="col">Sub-account or group</th>
                ${COUNTERS.map((c) => html`<th scope="col">${c.label}</th>`)}
              </tr>
            </thead>
            <tbody>
              ${rows.data.map(
                (row) =>
                  html`<tr>
                    <th scope="row">${row.kind}: ${row.name}</th>
                    ${COUNTERS.map((c) => html`<td>${localCount(counterOf(row.totals, c.key))}</td>`)}
                  </tr>`,
              )}
            </tbody>
          </table></${TableScroll}>`)
    }
  </section>`;
}
