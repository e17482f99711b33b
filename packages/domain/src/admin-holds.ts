// The admin console's view of holds: list them by event and status (an active
// hold past its time reads expired), and force-release one with a reason.
import { listHolds, type HoldFilter } from '@holdfast/db';
import type { DomainContext } from './context';
import { holdFromRow, type Hold, type HoldStatus } from './hold-view';
import { releaseHold } from './holds';
import { decodeAdminCursor } from './admin-cursor';
import { encodeCursor, type Page } from './paging';

export interface AdminHoldQuery {
  eventId?: string;
  status?: HoldStatus;
  limit: number;
  cursor?: string;
}

export async function adminListHolds(ctx: DomainContext, q: AdminHoldQuery): Promise<Page<Hold>> {
  const key = q.cursor ? decodeAdminCursor(q.cursor, 'hold') : undefined;
  // Holds reach PostgreSQL off the request path: drain the outbox first (this
  // event's, or every event this process has pending) so the list shows holds
  // taken a moment ago.
  await ctx.persister.flush(q.eventId ? [q.eventId] : undefined);
  const now = new Date();
  const filter: HoldFilter = { eventId: q.eventId };
  if (q.status === 'active') filter.activeAsOf = now;
  else if (q.status === 'expired') filter.expiredAsOf = now;
  else if (q.status) filter.status = q.status === 'confirmed' ? 'CONFIRMED' : 'RELEASED';
  const rows = await listHolds(ctx.db, filter, q.limit + 1, key);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => holdFromRow(r, now.getTime())),
    nextCursor: rows.length > q.limit && last ? encodeCursor(last.createdAt, last.id) : null,
  };
}

/** An admin ends a hold for a customer; releaseHold writes the audit entry with the reason. */
export function adminReleaseHold(ctx: DomainContext, adminId: string, holdId: string, reason: string): Promise<Hold> {
  return releaseHold(ctx, holdId, { kind: 'admin', adminId, reason });
}
