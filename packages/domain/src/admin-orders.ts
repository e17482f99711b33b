// The admin console's list of orders, optionally for one event, oldest first,
// keyset-paged so rows added while an admin pages through are never doubled.
import { listOrderRows } from '@holdfast/db';
import type { DomainContext } from './context';
import { decodeAdminCursor } from './admin-cursor';
import { orderFromRow, type Order } from './orders';
import { encodeCursor, type Page } from './paging';

export async function adminListOrders(
  ctx: DomainContext,
  q: { eventId?: string; q?: string; limit: number; cursor?: string },
): Promise<Page<Order>> {
  const c = q.cursor ? decodeAdminCursor(q.cursor, 'uuid') : undefined;
  const rows = await listOrderRows(ctx.db, { eventId: q.eventId, search: q.q }, q.limit + 1, c && { at: c.createdAt, id: c.id });
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(orderFromRow),
    nextCursor: rows.length > q.limit && last ? encodeCursor(last.createdAt, last.id) : null,
  };
}
