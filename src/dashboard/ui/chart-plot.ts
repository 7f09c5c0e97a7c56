/**
 * The pieces of the overview's SVG chart ({@link DailyChart} in chart.ts puts them together): the
 * frame (scales of one drawing), the series' patterns and markers, the axes, the bars and the step
 * lines. All of it is hidden from assistive technology; the figures are also a table.
 */
import { barSlots, labelledDays, seriesLook, valueTicks } from './chart-scale.js';
import { html } from './lib.js';
import { localCount, type CounterInfo, type DayStat } from './stats.js';

const HEIGHT = 280;
const MARGIN = { top: 12, right: 12, bottom: 28, left: 56 };

/** A series as drawn: its counter, its look's index and its values, one per day. */
export interface Drawn {
  counter: CounterInfo;
  index: number;
  values: number[];
}

/** The scales of one drawing: where a value and a day go, the value ticks, the day labels. */
export interface Frame {
  width: number;
  height: number;
  plotWidth: number;
  ticks: number[];
  slot: number;
  yOf: (value: number) => number;
  xOf: (day: number) => number;
  /** A day's date in the viewer's locale. */
  label: (date: string) => string;
  /** Where a day's label is centred: under its slot, kept inside the drawing. */
  labelX: (day: number) => number;
  /** Days with a label. */
  labelled: number[];
}

/**
 * The frame of `drawn` over `days` in a drawing `width` wide. Dates are in the viewer's locale (the
 * days are UTC days), with the year when the days span two, and spaced so they never overlap.
 */
export function frameOf(days: readonly DayStat[], drawn: readonly Drawn[], width: number): Frame {
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const ticks = valueTicks(Math.max(0, ...drawn.flatMap((s) => s.values)));
  const top = ticks[ticks.length - 1]!;
  const slot = plotWidth / Math.max(1, days.length);
  const xOf = (day: number) => MARGIN.left + day * slot;
  const spansYears = days.length > 0 && days[0]!.date.slice(0, 4) !== days[days.length - 1]!.date.slice(0, 4);
  const format = new Intl.DateTimeFormat(undefined, {
    month: 'short',
    day: 'numeric',
    ...(spansYears && { year: 'numeric' }),
    timeZone: 'UTC',
  });
  const half = spansYears ? 50 : 30;
  const labelX = (day: number) =>
    Math.min(Math.max(xOf(day) + slot / 2, MARGIN.left + half), width - MARGIN.right - half);
  // The last day's label is kept; one that would touch the label after it (the last is pulled
  // inside the drawing) is left out.
  const labelled = labelledDays(days.length, Math.floor(plotWidth / (half * 2.6))).filter(
    (day, i, all) => i === all.length - 1 || labelX(all[all.length - 1]!) - labelX(day) >= half * 2.4,
  );
  return {
    width,
    height: HEIGHT,
    plotWidth,
    ticks,
    slot,
    yOf: (value) => MARGIN.top + plotHeight - (value / top) * plotHeight,
    xOf,
    label: (date) => format.format(new Date(`${date}T00:00:00Z`)),
    labelX,
    labelled,
  };
}

/** The SVG `<pattern>` of a series' bars: its colour with white marks. */
export const Pattern = ({ id, index }: { id: string; index: number }) => {
  const look = seriesLook(index);
  return html`<pattern id=${id} patternUnits="userSpaceOnUse" width="6" height="6">
    <rect width="6" height="6" fill=${look.colour} />
    ${look.pattern && html`<path d=${look.pattern} stroke="#fff" stroke-width="1.2" fill="#fff" />`}
  </pattern>`;
};

/** A series' marker at `x`, `y`. */
export const Marker = ({ index, x, y }: { index: number; x: number; y: number }) =>
  html`<path
    class="marker"
    d=${seriesLook(index).marker}
    transform=${`translate(${x.toFixed(1)},${y.toFixed(1)})`}
    fill=${seriesLook(index).colour}
    stroke="#fff"
    stroke-width="1"
  />`;

/** The value gridlines and ticks (numbers in the viewer's locale) and the day labels. */
export const Axes = ({ days, frame }: { days: readonly DayStat[]; frame: Frame }) =>
  html`<g class="axis y">
      ${frame.ticks.map(
        (tick) =>
          html`<line x1=${MARGIN.left} x2=${frame.width - MARGIN.right} y1=${frame.yOf(tick)} y2=${frame.yOf(tick)} />
            <text x=${MARGIN.left - 6} y=${frame.yOf(tick) + 4} text-anchor="end">${localCount(tick)}</text>`,
      )}
    </g>
    <g class="axis x">
      ${frame.labelled.map(
        (i) =>
          html`<text x=${frame.labelX(i)} y=${frame.height - 8} text-anchor="middle"
            >${frame.label(days[i]!.date)}</text
          >`,
      )}
    </g>`;

/** Each day's bars side by side, one per shown series with a count that day. */
export function Bars({
  days,
  drawn,
  frame,
  patternId,
}: {
  days: readonly DayStat[];
  drawn: readonly Drawn[];
  frame: Frame;
  patternId: (index: number) => string;
}) {
  const base = frame.yOf(0);
  return html`${days.map((day, dayIndex) => {
    const slots = barSlots(frame.plotWidth, days.length, dayIndex, drawn.length);
    return drawn.map((series, i) => {
      const value = series.values[dayIndex]!;
      if (value === 0) return null;
      return html`<rect
        class="bar"
        data-series=${series.counter.key}
        data-date=${day.date}
        data-value=${value}
        x=${(MARGIN.left + slots[i]!.x).toFixed(2)}
        y=${frame.yOf(value).toFixed(2)}
        width=${Math.max(0.5, slots[i]!.width).toFixed(2)}
        height=${(base - frame.yOf(value)).toFixed(2)}
        fill=${`url(#${patternId(series.index)})`}
        stroke=${seriesLook(series.index).colour}
        stroke-width=${slots[i]!.width > 4 ? 1 : 0}
        ><title>${series.counter.label}, ${frame.label(day.date)}: ${localCount(value)}</title></rect
      >`;
    });
  })}`;
}

/**
 * Each shown series as a step line (a count holds for its whole day: a flat run across the day's
 * slot, vertical joins), its dash, and its markers on every few days, staggered by series so equal
 * values still show each marker.
 */
export function Steps({ drawn, frame }: { drawn: readonly Drawn[]; frame: Frame }) {
  const markerEvery = Math.max(1, Math.ceil((drawn[0]?.values.length ?? 0) / 16));
  const point = (value: number, i: number) =>
    `${i === 0 ? `M${frame.xOf(0).toFixed(1)},` : 'V'}${frame.yOf(value).toFixed(1)}H${frame.xOf(i + 1).toFixed(1)}`;
  return html`${drawn.map((series) => {
    const look = seriesLook(series.index);
    return html`<g class="step" data-series=${series.counter.key}>
      <path
        d=${series.values.map(point).join('')}
        fill="none"
        stroke=${look.colour}
        stroke-width="2"
        stroke-dasharray=${look.dash || undefined}
      />
      ${series.values.map((value, i) =>
        (i + series.index) % markerEvery === 0
          ? html`<${Marker} index=${series.index} x=${frame.xOf(i) + frame.slot / 2} y=${frame.yOf(value)} />`
          : null,
      )}
    </g>`;
  })}`;
}
