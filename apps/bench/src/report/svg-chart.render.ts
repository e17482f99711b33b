/** Hand-written SVG: stacked panels of horizontal bars, one scale per panel. */

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
  for (const panel of panels.filter((candidate) => candidate.bars.length > 0)) {
    parts.push(`<text x="16" y="${y + 18}" class="panel">${escapeXml(panel.title)}</text>`);
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
