// The sale window rule: holds are taken only while the event is on sale and the
// time is inside [salesStartAt, salesEndAt). Confirms never ask it.
import type { EventRow } from '@holdfast/db';
import { errors } from './errors';

export type SaleState = 'open' | 'draft' | 'closed' | 'not_yet' | 'ended';

/** Where the sale stands at `nowMs`: the start is inside the window, the end is not. */
export function saleState(
  event: Pick<EventRow, 'salesStatus' | 'salesStartAt' | 'salesEndAt'>, nowMs: number,
): SaleState {
  if (event.salesStatus === 'draft') return 'draft';
  if (event.salesStatus === 'closed') return 'closed';
  if (event.salesStartAt && nowMs < event.salesStartAt.getTime()) return 'not_yet';
  if (event.salesEndAt && nowMs >= event.salesEndAt.getTime()) return 'ended';
  return 'open';
}

/** Throws SALES_CLOSED unless holds may be taken at `nowMs`. */
export function assertSaleOpen(event: Pick<EventRow, 'salesStatus' | 'salesStartAt' | 'salesEndAt'>, nowMs: number): void {
  if (saleState(event, nowMs) === 'open') return;
  throw salesClosedError(event, nowMs);
}

/**
 * Throws SALES_CLOSED unless the event is on sale (draft and closed need no
 * clock). The window's bounds are checked by the hold scripts on Redis's clock.
 */
export function assertOnSale(event: Pick<EventRow, 'salesStatus' | 'salesStartAt' | 'salesEndAt'>): void {
  if (event.salesStatus !== 'on_sale') throw salesClosedError(event, Date.now());
}

/** SALES_CLOSED as refused at `nowMs` (Redis's time when a hold script refused it). */
export function salesClosedError(event: Pick<EventRow, 'salesStatus' | 'salesStartAt' | 'salesEndAt'>, nowMs: number) {
  return errors.salesClosed({
    salesStatus: event.salesStatus,
    salesStartAt: event.salesStartAt?.toISOString() ?? null,
    salesEndAt: event.salesEndAt?.toISOString() ?? null,
    serverTime: new Date(nowMs).toISOString(),
  });
}
