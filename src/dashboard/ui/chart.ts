/**
 * The overview's chart of daily counters, drawn as SVG: up to {@link MAX_BAR_DAYS} days as bars side
 * by side (one day of mail is a group of bars, not a spike at an edge), longer ranges as step lines.
 * Every series has its own colour and also its own fill pattern, dash and marker, so none depends on
 * colour vision, and bars never hide one another. Buttons (`aria-pressed`) show and hide series; the
 * axes are in the viewer's locale. The drawing is hidden from assistive technology: the same figures
 * are in a table below it ({@link ChartFigures}).
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ChartFigures } from './chart-figures.js';
import { Axes, Bars, frameOf, Marker, Pattern, Steps, type Drawn } from './chart-plot.js';
import { MAX_BAR_DAYS, seriesLook } from './chart-scale.js';
import { html } from './lib.js';
import { COUNTERS, counterOf, type CounterKey, type DayStat } from './stats.js';

/** A button's sample of its series: the bar's pattern, or the line's dash and marker. */
const Swatch = ({ index, bars, patternId }: { index: number; bars: boolean; patternId: string }) => {
  const look = seriesLook(index);
  return html`<svg class="swatch" width="30" height="14" viewBox="0 0 30 14" aria-hidden="true" focusable="false">
    ${
      bars
        ? html`<rect x="3" y="1" width="24" height="12" fill=${`url(#${patternId})`} stroke=${look.colour} />`
        : html`<line
              x1="0"
              y1="7"
              x2="30"
              y2="7"
              stroke=${look.colour}
              stroke-width="2"
              stroke-dasharray=${look.dash || undefined}
            />
            <${Marker} index=${index} x=${15} y=${7} />`
    }
  </svg>`;
};

/** One button per counter, pressed while its series is shown. */
const SeriesButtons = ({
  shown,
  onToggle,
  bars,
  patternId,
}: {
  shown: readonly CounterKey[];
  onToggle: (key: CounterKey) => void;
  bars: boolean;
  patternId: (index: number) => string;
}) =>
  html`<div class="chart-series" role="group" aria-label="Series shown in the chart">
    ${COUNTERS.map(
      (counter, index) =>
        html`<button
          type="button"
          class="series-toggle"
          aria-pressed=${shown.includes(counter.key) ? 'true' : 'false'}
          onClick=${() => onToggle(counter.key)}
        >
          <${Swatch} index=${index} bars=${bars} patternId=${patternId(index)} />${counter.label}
        </button>`,
    )}
  </div>`;

/** The width of `box`'s element, followed as it changes (the drawing is as wide as its card). */
function useWidth(box: { current: HTMLElement | null }): number {
  const [width, setWidth] = useState(640);
  useEffect(() => {
    const element = box.current;
    if (!element) return undefined;
    const measure = () => setWidth(Math.max(280, Math.floor(element.clientWidth)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return width;
}

/** The chart of `days`, titled `title`. */
export function DailyChart({ days, title }: { days: readonly DayStat[]; title: string }) {
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);
  const [shown, setShown] = useState<CounterKey[]>(() => COUNTERS.filter((c) => c.charted).map((c) => c.key));
  const prefix = useId().replace(/[^\w-]/g, '');
  const patternId = (index: number) => `${prefix}-pattern-${index}`;
  const toggle = (key: CounterKey) => setShown(shown.includes(key) ? shown.filter((k) => k !== key) : [...shown, key]);
  const bars = days.length <= MAX_BAR_DAYS;
  const drawn: Drawn[] = COUNTERS.flatMap((counter, index) =>
    shown.includes(counter.key) ? [{ counter, index, values: days.map((d) => counterOf(d.stat, counter.key)) }] : [],
  );
  const frame = frameOf(days, drawn, width);
  return html`<figure class="chart">
    <figcaption>${title}</figcaption>
    <${SeriesButtons} shown=${shown} onToggle=${toggle} bars=${bars} patternId=${patternId} />
    <div ref=${box} class="chart-canvas" data-mode=${bars ? 'bars' : 'steps'} data-points=${days.length}>
      <svg width=${width} height=${frame.height} aria-hidden="true" focusable="false">
        <defs>${COUNTERS.map((_, index) => html`<${Pattern} id=${patternId(index)} index=${index} />`)}</defs>
        <${Axes} days=${days} frame=${frame} />
        ${
          bars
            ? html`<${Bars} days=${days} drawn=${drawn} frame=${frame} patternId=${patternId} />`
            : html`<${Steps} drawn=${drawn} frame=${frame} />`
        }
      </svg>
      ${drawn.length === 0 && html`<p class="status">No series shown: choose one above.</p>`}
    </div>
    <${ChartFigures} days=${days} dayLabel=${frame.label} caption=${`${title}: the chart's figures, day by day`} />
  </figure>`;
}
