/**
 * Seat map geometry: sections side by side (wrapping to the next line when
 * they do not fit), rows top to bottom inside a section, seats left to right
 * by number, each row centred in its section. Units are CSS pixels.
 */
import type { Seat } from '../shared/types';

export const SEAT_SIZE = 26;
const PITCH = 32;
const ROW_LABEL_WIDTH = 30;
const SECTION_HEADER = 28;
const SECTION_PADDING = 12;
const SECTION_GAP = 20;
export const STAGE_HEIGHT = 34;

export interface SeatBox {
  seat: Seat;
  x: number;
  y: number;
  /** Position in the keyboard grid: section/row line and index within that line. */
  line: number;
  index: number;
}

export interface SectionBox {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
  rows: { label: string; y: number }[];
}

export interface SeatLayout {
  seats: SeatBox[];
  /** Every row of every section, in reading order, as indexes into `seats`. */
  lines: number[][];
  sections: SectionBox[];
  width: number;
  height: number;
}

const natural = (a: string, b: string) => a.localeCompare(b, undefined, { numeric: true });

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

export function layoutSeats(seats: Seat[], wrapWidth: number): SeatLayout {
  const boxes: SeatBox[] = [];
  const lines: number[][] = [];
  const sections: SectionBox[] = [];
  const bySection = groupBy(seats, (s) => s.section);
  let cursorX = 0;
  let cursorY = STAGE_HEIGHT + SECTION_GAP;
  let lineHeight = 0;
  let width = 0;

  for (const name of [...bySection.keys()].sort(natural)) {
    const byRow = groupBy(bySection.get(name) ?? [], (s) => s.row);
    const rowNames = [...byRow.keys()].sort(natural);
    const widest = Math.max(...rowNames.map((r) => byRow.get(r)?.length ?? 0));
    const sectionWidth = ROW_LABEL_WIDTH + widest * PITCH + SECTION_PADDING * 2;
    const sectionHeight = SECTION_HEADER + rowNames.length * PITCH + SECTION_PADDING;
    if (cursorX > 0 && cursorX + sectionWidth > wrapWidth) {
      cursorX = 0;
      cursorY += lineHeight + SECTION_GAP;
      lineHeight = 0;
    }
    const section: SectionBox = { name, x: cursorX, y: cursorY, width: sectionWidth, height: sectionHeight, rows: [] };
    rowNames.forEach((rowName, rowIndex) => {
      const rowSeats = (byRow.get(rowName) ?? []).sort((a, b) => a.number - b.number);
      const rowY = cursorY + SECTION_HEADER + rowIndex * PITCH;
      const offset = ((widest - rowSeats.length) * PITCH) / 2;
      section.rows.push({ label: rowName, y: rowY + SEAT_SIZE / 2 });
      const line: number[] = [];
      rowSeats.forEach((seat, index) => {
        line.push(boxes.length);
        boxes.push({
          seat,
          x: cursorX + SECTION_PADDING + ROW_LABEL_WIDTH + offset + index * PITCH,
          y: rowY,
          line: lines.length,
          index,
        });
      });
      lines.push(line);
    });
    sections.push(section);
    cursorX += sectionWidth + SECTION_GAP;
    width = Math.max(width, cursorX - SECTION_GAP);
    lineHeight = Math.max(lineHeight, sectionHeight);
  }
  return { seats: boxes, lines, sections, width: Math.max(width, 1), height: cursorY + lineHeight };
}

/** The seat an arrow key moves to from `from` (an index into `layout.seats`), or undefined at an edge. */
export function neighbour(layout: SeatLayout, from: number, key: string): number | undefined {
  const box = layout.seats[from];
  if (!box) return undefined;
  const line = layout.lines[box.line] ?? [];
  if (key === 'ArrowLeft') return line[box.index - 1];
  if (key === 'ArrowRight') return line[box.index + 1];
  if (key === 'Home') return line[0];
  if (key === 'End') return line[line.length - 1];
  const step = key === 'ArrowUp' ? -1 : key === 'ArrowDown' ? 1 : 0;
  if (!step) return undefined;
  const target = layout.lines[box.line + step];
  if (!target?.length) return undefined;
  // The seat in the next row closest to this one horizontally.
  let best = target[0] as number;
  for (const candidate of target) {
    const distance = Math.abs((layout.seats[candidate]?.x ?? 0) - box.x);
    if (distance < Math.abs((layout.seats[best]?.x ?? 0) - box.x)) best = candidate;
  }
  return best;
}

const PALETTE = ['#6d28d9', '#0f766e', '#c2410c', '#1d4ed8', '#be123c', '#4d7c0f', '#a16207', '#0369a1'];

/** A colour per tier, the most expensive tier first. */
export function tierColours(seats: Seat[]): Map<string, { colour: string; minCents: number; maxCents: number }> {
  const ranges = new Map<string, { minCents: number; maxCents: number }>();
  for (const seat of seats) {
    const range = ranges.get(seat.tier);
    if (range) {
      range.minCents = Math.min(range.minCents, seat.priceCents);
      range.maxCents = Math.max(range.maxCents, seat.priceCents);
    } else {
      ranges.set(seat.tier, { minCents: seat.priceCents, maxCents: seat.priceCents });
    }
  }
  const ordered = [...ranges.entries()].sort((a, b) => b[1].maxCents - a[1].maxCents || natural(a[0], b[0]));
  return new Map(
    ordered.map(([tier, range], i) => [tier, { colour: PALETTE[i % PALETTE.length] as string, ...range }]),
  );
}
