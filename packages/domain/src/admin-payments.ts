// The admin console's list of payments: the ones owed a refund first (they need
// a human), then the applied ones; keyset-paged on (status, receivedAt, id).
import type { paymentObject, paymentStatus, z } from '@holdfast/contracts';
import {
  findPayment, listPaymentRows, markPaymentRefunded, recordAudit, runTransaction, type PaymentRow, type PaymentStatusDb,
} from '@holdfast/db';
import type { DomainContext } from './context';
import { errors } from './errors';
import { isUuid } from './ids';
import { decodeAdminCursor } from './admin-cursor';
import { encodeCursor, type Page } from './paging';

export type PaymentStatus = z.output<typeof paymentStatus>;
/** The contract's Payment object; `refund` is set once someone marked the refund done: who, when and their note. */
export type PaymentView = z.output<typeof paymentObject>;

const toDb = (s: PaymentStatus): PaymentStatusDb => s.toUpperCase() as PaymentStatusDb;
const CURSOR_TAG: Record<PaymentStatusDb, string> = { APPLIED: 'A', REFUND_REQUIRED: 'R', IGNORED: 'I' };
const STATUS_OF_TAG: Record<string, PaymentStatusDb> = { A: 'APPLIED', R: 'REFUND_REQUIRED', I: 'IGNORED' };

export function paymentFromRow(row: PaymentRow): PaymentView {
  return {
    id: row.id,
    provider: row.provider,
    reference: row.reference,
    holdId: row.holdId,
    amountCents: row.amountCents,
    currency: row.currency,
    status: row.status.toLowerCase() as PaymentStatus,
    reason: row.reason,
    orderId: row.orderId,
    receivedAt: row.receivedAt.toISOString(),
    refund: row.refundedAt
      ? { by: row.refundedBy ?? '', at: row.refundedAt.toISOString(), note: row.refundNote ?? '' }
      : null,
  };
}

/** The cursor's id part carries the status: `<A|R>:<payment id>`. */
function decodePaymentCursor(cursor: string): { status: PaymentStatusDb; at: Date; id: string } {
  const { createdAt, id } = decodeAdminCursor(cursor, 'uuid', (raw) => raw.slice(2));
  const m = /^([ARI]):(.+)$/.exec(id);
  if (!m) throw errors.validation({ fields: [{ path: 'cursor', message: 'not a cursor this API returned' }] });
  return { status: STATUS_OF_TAG[m[1]!]!, at: createdAt, id: m[2]! };
}

export async function adminListPayments(
  ctx: DomainContext,
  q: { status?: PaymentStatus; limit: number; cursor?: string },
): Promise<Page<PaymentView>> {
  const key = q.cursor ? decodePaymentCursor(q.cursor) : undefined;
  const rows = await listPaymentRows(ctx.db, { status: q.status && toDb(q.status) }, q.limit + 1, key);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(paymentFromRow),
    nextCursor:
      rows.length > q.limit && last
        ? encodeCursor(last.receivedAt, `${CURSOR_TAG[last.status]}:${last.id}`)
        : null,
  };
}

/**
 * An admin records that a refund-required payment was refunded at the provider
 * (the refund itself happens there): who, when and a note, with an audit entry,
 * in one transaction. A payment is marked once; an applied payment never.
 */
export async function adminMarkRefunded(ctx: DomainContext, adminId: string, paymentId: string, note: string): Promise<PaymentView> {
  if (!isUuid(paymentId)) throw errors.paymentNotFound();
  const row = await runTransaction(ctx.db, async (tx) => {
    const marked = await markPaymentRefunded(tx, paymentId, `admin:${adminId}`, new Date(), note);
    if (!marked) {
      const found = await findPayment(tx, paymentId);
      if (!found) throw errors.paymentNotFound();
      throw errors.paymentNotRefundable(found.status === 'REFUND_REQUIRED' ? 'already_refunded' : 'not_owed');
    }
    await recordAudit(tx, {
      actor: `admin:${adminId}`, action: 'payment.refunded', eventId: marked.eventId, holdId: marked.holdId,
      orderId: marked.orderId, reason: note, details: { paymentId, amountCents: marked.amountCents, currency: marked.currency },
    });
    return marked;
  });
  return paymentFromRow(row);
}
