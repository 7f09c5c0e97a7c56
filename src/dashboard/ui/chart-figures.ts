/**
 * The chart's figures as a table, day by day, every counter of the daily record: what a screen
 * reader reads instead of the drawing, and what anyone can open to read exact values.
 */
import { html, TableScroll } from './lib.js';
import { COUNTERS, counterOf, localCount, type DayStat } from './stats.js';

/** The table of `days`, newest first, in a disclosure under the chart. */
export const ChartFigures = ({
  days,
  dayLabel,
  caption,
}: {
  days: readonly DayStat[];
  dayLabel: (date: string) => string;
  caption: string;
}) =>
  html`<details class="chart-figures">
    <summary>The chart's figures as a table</summary>
    <${TableScroll}>
      <table class="list">
        <caption>
          ${caption}
        </caption>
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            ${COUNTERS.map((c) => html`<th scope="col">${c.label}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${[...days].reverse().map(
            (day) =>
              html`<tr>
                <th scope="row"><time datetime=${day.date}>${dayLabel(day.date)}</time></th>
                ${COUNTERS.map((c) => html`<td>${localCount(counterOf(day.stat, c.key))}</td>`)}
              </tr>`,
          )}
        </tbody>
      </table>
    </${TableScroll}>
  </details>`;
