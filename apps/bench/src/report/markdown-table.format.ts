export type Cell = string | number | null | undefined;

/** A GitHub-flavoured Markdown table; numbers are right-aligned. */
export function markdownTable(headers: string[], rows: Cell[][]): string {
  const numeric = headers.map((_, column) => rows.length > 0 && rows.every((row) => isNumericCell(row[column])));
  const text = rows.map((row) => headers.map((_, column) => formatCell(row[column])));
  const widths = headers.map((header, column) => Math.max(header.length, 3, ...text.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (numeric[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((width, column) => (numeric[column] ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width))).join(' | ')} |`;
  return [line(headers), rule, ...text.map(line)].join('\n');
}

function isNumericCell(cell: Cell): boolean {
  return cell === null || cell === undefined || typeof cell === 'number' || /^[-+]?[\d,.]+( ?[×x%])?$/.test(cell);
}

function formatCell(cell: Cell): string {
  if (cell === null || cell === undefined) return '–';
  if (typeof cell === 'number') return formatNumber(cell);
  return cell.replace(/\|/g, '\\|');
}

/** 1234.5 → "1,235"; 12.345 → "12.3"; 0.1234 → "0.123". */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs >= 100 || Number.isInteger(value) ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: digits });
}

/** A ratio as "0.87×"; "–" when the baseline is missing or zero. */
export function ratio(value: number | null | undefined, baseline: number | null | undefined): number | null {
  if (value === null || value === undefined || !baseline) return null;
  return Math.round((value / baseline) * 1000) / 1000;
}

export function formatRatio(value: number | null): string {
  return value === null ? '–' : `${value.toFixed(2)}×`;
}
