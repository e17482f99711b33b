import { randomUUID } from 'node:crypto';
import type { Prisma } from '@prisma/client';
import type { DbClient } from './event.repository';
import { translated } from './errors';

export interface AuditInput {
  actor: string;
  action: string;
  eventId?: string | null;
  holdId?: string | null;
  orderId?: string | null;
  reason?: string | null;
  details?: Prisma.InputJsonValue;
}

/** Writes an audit entry, inside the caller's transaction when given one. */
export async function recordAudit(tx: DbClient, entry: AuditInput): Promise<void> {
  await translated(() => tx.auditEntry.create({ data: { id: randomUUID(), ...entry } }));
}
