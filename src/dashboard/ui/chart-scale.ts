/**
 * The chart's geometry and looks, without a DOM: the value axis's round ticks, which days get a
 * label, the bars of a day, and each series' colour, fill pattern, dash and marker. Colours alone
 * never tell two series apart (Paul Tol's "muted" scheme, chosen for colour-blind readers, plus a
 * distinct pattern, dash and marker shape for every series). Unit-tested in
 * test/unit/dashboard-stats.test.ts.
 */

/** How one series is drawn. */
export interface SeriesLook {
  colour: string;
  /** SVG path data of the white marks over the bar's colour (none: a solid bar), in a 6×6 tile. */
  pattern: string;
  /** `stroke-dasharray` of its step line (empty: solid). */
  dash: string;
  /** SVG path data of its marker, centred on 0,0. */
  marker: string;
}

const CIRCLE = 'M-3.5,0a3.5,3.5 0 1,0 7,0a3.5,3.5 0 1,0 -7,0z';
const LOOKS: readonly SeriesLook[] = [
  { colour: '#332288', pattern: '', dash: '', marker: CIRCLE },
  { colour: '#88ccee', pattern: 'M3,2.2v1.6M2.2,3h1.6', dash: '2 3', marker: 'M-3,-3h6v6h-6z' },
  { colour: '#ddcc77', pattern: 'M-1,1l2,-2M0,6l6,-6M5,7l2,-2', dash: '7 3', marker: 'M0,-4.5L4,3H-4z' },
  { colour: '#aa4499', pattern: 'M-1,5l2,2M0,0l6,6M5,-1l2,2', dash: '1 3', marker: 'M0,-4.5L4,0L0,4.5L-4,0z' },
  { colour: '#117733', pattern: 'M0,3h6', dash: '6 2', marker: 'M-3.5,-3.5h7v7h-7z' },
  { colour: '#999933', pattern: 'M3,0v6', dash: '8 3 2 3', marker: 'M0,4.5L4,-3H-4z' },
  {
    colour: '#cc6677',
    pattern: 'M0,6l6,-6M0,0l6,6',
    dash: '4 4',
    marker: 'M-1.3,-4.5h2.6v3.2h3.2v2.6h-3.2v3.2h-2.6v-3.2h-3.2v-2.6h3.2z',
  },
  { colour: '#44aa99', pattern: 'M0,3h6M3,0v6', dash: '12 3 3 3', marker: 'M-2,-3.8h4l2,3.8l-2,3.8h-4l-2,-3.8z' },
  {
    colour: '#882255',
    pattern: 'M0,0h3v3h-3zM3,3h3v3h-3z',
    dash: '3 6',
    marker: 'M0,-4.8L1.3,-1.3L4.8,0L1.3,1.3L0,4.8L-1.3,1.3L-4.8,0L-1.3,-1.3z',
  },
  { colour: '#555555', pattern: 'M0,1.5h6M0,4.5h6', dash: '10 2 2 2 2 2', marker: 'M-4.5,-1.5h9v3h-9z' },
  { colour: '#000000', pattern: 'M1.5,0v6M4.5,0v6', dash: '14 4', marker: 'M-1.5,-4.5h3v9h-3z' },
];

/** The look of the `index`th series (of the counters' fixed order, so a series keeps its look when others hide). */
export const seriesLook = (index: number): SeriesLook => LOOKS[index % LOOKS.length]!;

/**
 * Round ticks from 0 covering `max` (a count, so steps are whole numbers): about `count` of them,
 * with steps of 1, 2 or 5 times a power of ten. The last tick is the axis's top.
 */
export function valueTicks(max: number, count = 4): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power);
  const ticks: number[] = [];
  for (let value = 0; ticks.length === 0 || ticks[ticks.length - 1]! < max; value += step) ticks.push(value);
  return ticks;
}

/** The indexes of the days that get a date under the axis: at most `most`, evenly spaced, the last day always. */
export function labelledDays(days: number, most: number): number[] {
  if (days <= 0) return [];
  const every = Math.max(1, Math.ceil(days / Math.max(1, most)));
  const picked: number[] = [];
  for (let i = (days - 1) % every; i < days; i += every) picked.push(i);
  return picked;
}

/** Up to this many days the chart draws bars side by side; longer ranges are step lines. */
export const MAX_BAR_DAYS = 31;

/** A bar: its series' position among the shown ones, its left edge and width in the plot's units. */
export interface BarSlot {
  x: number;
  width: number;
}

/**
 * Where the bars of day `day` go in a plot `width` wide showing `days` days and `shown` series: the
 * day's slot, less a gap of a fifth, shared equally.
 */
export function barSlots(width: number, days: number, day: number, shown: number): BarSlot[] {
  const slot = width / days;
  const group = slot * 0.8;
  const bar = group / Math.max(1, shown);
  const start = day * slot + (slot - group) / 2;
  return Array.from({ length: shown }, (_, i) => ({ x: start + i * bar, width: bar }));
}
