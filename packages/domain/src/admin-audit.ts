// The audit log as the admin console reads it: who did what to which hold or
// order, when and why (admin releases, refund-required payments), oldest first.
import type { auditEntryObject, z } from '@holdfast/contracts';
import { listAuditRows } from '@holdfast/db';
import type { DomainContext } from './context';
import { decodeAdminCursor } from './admin-cursor';
import { encodeCursor, type Page } from './paging';

/** The contract's AuditEntry object. */
export type AuditEntryView = z.output<typeof auditEntryObject>;

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
