/**
 * A uPlot line chart of daily counters: drawn on a canvas, with a table of the same figures for
 * screen readers and keyboard users (the canvas itself is hidden from assistive technology).
 */
import uPlot from 'uplot';
import { useEffect, useRef } from 'preact/hooks';
import { CHART_SERIES, chartData, type DayStat } from './format.js';
import { html } from './lib.js';

const COLOURS = ['#4c6ef5', '#2f9e44', '#e03131', '#f08c00', '#7048e8', '#868e96', '#c2255c'];

/** The chart of `days`, titled `title`. */
export function DailyChart({ days, title }: { days: readonly DayStat[]; title: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return undefined;
    const width = Math.max(320, Math.min(element.clientWidth || 900, 1100));
    const plot = new uPlot(
      {
        width,
        height: 280,
        series: [{}, ...CHART_SERIES.map((series, i) => ({ label: series.label, stroke: COLOURS[i], width: 2 }))],
        axes: [{}, { size: 60 }],
        scales: { x: { time: true } },
        legend: { live: false },
      },
      chartData(days) as uPlot.AlignedData,
      element,
    );
    element.dataset.points = String(days.length);
    return () => plot.destroy();
  }, [days]);
  return html`<figure class="chart">
    <figcaption>${title}</figcaption>
    <div ref=${box} class="chart-canvas" aria-hidden="true"></div>
  </figure>`;
}
