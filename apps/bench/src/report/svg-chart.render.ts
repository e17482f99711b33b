/** Hand-written SVG: stacked panels of horizontal bars (or lines over categories), one scale per panel. */

interface ChartBar {
  label: string;
  value: number;
  /** Text after the value, e.g. "oversold 412". */
  note?: string;
  /** Draws the bar and its note in the alarm colour. */
  alarm?: boolean;
}

export interface ChartPanel {
  title: string;
  unit: string;
  bars: ChartBar[];
  /** A dashed vertical line, e.g. the number of tickets on sale. */
  marker?: { value: number; label: string };
  /** Drawn as lines over `xs` instead of bars (bars is then empty): e.g. p99 against concurrency. */
  lines?: LineSeries;
}

/** Series of values at the same x positions (categories, evenly spaced), one line each. */
export interface LineSeries {
  xLabel: string;
  xs: number[];
  series: { label: string; values: Array<number | null> }[];
}

const LINE_AREA = { left: 80, width: 600, height: 200 };

/** One line panel's SVG parts from height `y`; returns the parts and the height used. */
function linePanel(panel: ChartPanel & { lines: LineSeries }, y: number): { parts: string[]; height: number } {
  const { xs, series, xLabel } = panel.lines;
  const values = series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const max = Math.max(...values, 1e-9) * 1.1;
  const top = y + 8;
  const bottom = top + LINE_AREA.height;
  const xAt = (i: number) => LINE_AREA.left + (xs.length > 1 ? (i / (xs.length - 1)) * LINE_AREA.width : LINE_AREA.width / 2);
  const yAt = (v: number) => bottom - (v / max) * LINE_AREA.height;
  const parts: string[] = [
    `<line x1="${LINE_AREA.left}" y1="${bottom}" x2="${LINE_AREA.left + LINE_AREA.width}" y2="${bottom}" stroke="#888"/>`,
    `<line x1="${LINE_AREA.left}" y1="${top}" x2="${LINE_AREA.left}" y2="${bottom}" stroke="#888"/>`,
  ];
  for (let g = 1; g <= 4; g += 1) {
    const v = (max / 4) * g;
    parts.push(
      `<line x1="${LINE_AREA.left}" y1="${yAt(v).toFixed(1)}" x2="${LINE_AREA.left + LINE_AREA.width}" y2="${yAt(v).toFixed(1)}" stroke="#eee"/>`,
      `<text x="${LINE_AREA.left - 6}" y="${(yAt(v) + 4).toFixed(1)}" class="label" text-anchor="end">${escapeXml(`${formatValue(v)} ${panel.unit}`)}</text>`,
    );
  }
  xs.forEach((x, i) => parts.push(`<text x="${xAt(i).toFixed(1)}" y="${bottom + 16}" class="label" text-anchor="middle">${escapeXml(String(x))}</text>`));
  parts.push(`<text x="${LINE_AREA.left + LINE_AREA.width / 2}" y="${bottom + 32}" class="label" text-anchor="middle">${escapeXml(xLabel)}</text>`);
  series.forEach((s, index) => {
    const colour = COLOURS[index % COLOURS.length];
    const points = s.values.map((v, i) => (v === null ? null : `${xAt(i).toFixed(1)},${yAt(v).toFixed(1)}`)).filter((p): p is string => p !== null);
    if (points.length > 1) parts.push(`<polyline points="${points.join(' ')}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    for (const p of points) {
      const [cx, cy] = p.split(',');
      parts.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${colour}"/>`);
    }
    const ly = top + 12 + index * 18;
    parts.push(
      `<rect x="${LINE_AREA.left + LINE_AREA.width + 20}" y="${ly - 9}" width="12" height="12" fill="${colour}"/>`,
      `<text x="${LINE_AREA.left + LINE_AREA.width + 38}" y="${ly + 1}" class="label">${escapeXml(s.label)}</text>`,
    );
  });
  return { parts, height: LINE_AREA.height + 48 };
}

const WIDTH = 900;
const LABEL_WIDTH = 300;
const BAR_AREA = 380;
const BAR_HEIGHT = 20;
const BAR_GAP = 8;
const PANEL_HEADER = 34;
const PANEL_GAP = 22;
const COLOURS = ['#3b6ea8', '#5b9bd5', '#70ad47', '#a5a5a5', '#7f6084', '#4bacc6'];

export function renderBarChart(title: string, subtitle: string, panels: ChartPanel[]): string {
  const parts: string[] = [];
  let y = 64;
  for (const panel of panels.filter((candidate) => candidate.bars.length > 0 || (candidate.lines?.xs.length ?? 0) > 0)) {
    parts.push(`<text x="16" y="${y + 18}" class="panel">${escapeXml(panel.title)}</text>`);
    if (panel.lines) {
      const drawn = linePanel(panel as ChartPanel & { lines: LineSeries }, y + PANEL_HEADER);
      parts.push(...drawn.parts);
      y += PANEL_HEADER + drawn.height + PANEL_GAP;
      continue;
    }
    y += PANEL_HEADER + (panel.marker ? 12 : 0);
    const max = Math.max(...panel.bars.map((bar) => bar.value), panel.marker?.value ?? 0, 1e-9);
    const top = y;
    panel.bars.forEach((bar, index) => {
      const width = Math.max(1, (bar.value / max) * BAR_AREA);
      const colour = bar.alarm ? '#c0392b' : COLOURS[index % COLOURS.length];
      const valueText = `${formatValue(bar.value)} ${panel.unit}${bar.note ? ` · ${bar.note}` : ''}`;
      parts.push(
        `<text x="${LABEL_WIDTH - 8}" y="${y + 15}" class="label" text-anchor="end">${escapeXml(bar.label)}</text>`,
        `<rect x="${LABEL_WIDTH}" y="${y}" width="${width.toFixed(1)}" height="${BAR_HEIGHT}" fill="${colour}" rx="2"/>`,
        `<text x="${(LABEL_WIDTH + width + 6).toFixed(1)}" y="${y + 15}" class="${bar.alarm ? 'alarm' : 'value'}">${escapeXml(valueText)}</text>`,
      );
      y += BAR_HEIGHT + BAR_GAP;
    });
    if (panel.marker) {
      const x = (LABEL_WIDTH + (panel.marker.value / max) * BAR_AREA).toFixed(1);
      parts.push(
        `<line x1="${x}" y1="${top - 4}" x2="${x}" y2="${y - BAR_GAP + 4}" stroke="#222" stroke-width="1.5" stroke-dasharray="4 3"/>`,
        `<text x="${x}" y="${top - 7}" class="marker" text-anchor="middle">${escapeXml(panel.marker.label)}</text>`,
      );
    }
    y += PANEL_GAP;
  }
  const height = y + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif">
<style>
  .title { font-size: 20px; font-weight: bold; fill: #222; }
  .subtitle { font-size: 12px; fill: #666; }
  .panel { font-size: 15px; font-weight: bold; fill: #333; }
  .label { font-size: 12px; fill: #333; }
  .value { font-size: 12px; fill: #333; }
  .marker { font-size: 11px; fill: #222; }
  .alarm { font-size: 12px; fill: #c0392b; font-weight: bold; }
</style>
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="16" y="30" class="title">${escapeXml(title)}</text>
<text x="16" y="50" class="subtitle">${escapeXml(subtitle)}</text>
${parts.join('\n')}
</svg>
`;
}

function formatValue(value: number): string {
  if (value >= 100) return Math.round(value).toLocaleString('en-US');
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
