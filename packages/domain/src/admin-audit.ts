// The audit log as the admin console reads it: who did what to which hold or
// order, when and why (admin releases, refund-required payments), oldest first.
import { listAuditRows } from '@holdfast/db';
import type { DomainContext } from './context';
import { decodeAdminCursor } from './admin-cursor';
import { encodeCursor, type Page } from './paging';

export interface AuditEntryView {
  at: string;
  actor: string;
  action: string;
  holdId: string | null;
  orderId: string | null;
  reason: string | null;
}

export async function adminListAudit(
  ctx: DomainContext,
  q: { eventId?: string; limit: number; cursor?: string },
): Promise<Page<AuditEntryView>> {
  const c = q.cursor ? decodeAdminCursor(q.cursor, 'uuid') : undefined;
  const rows = await listAuditRows(ctx.db, { eventId: q.eventId }, q.limit + 1, c && { at: c.createdAt, id: c.id });
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => ({ at: r.at.toISOString(), actor: r.actor, action: r.action, holdId: r.holdId, orderId: r.orderId, reason: r.reason })),
    nextCursor: rows.length > q.limit && last ? encodeCursor(last.at, last.id) : null,
  };
}
