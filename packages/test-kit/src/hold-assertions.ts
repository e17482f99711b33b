import { eventKeyPattern, eventKeys, parseEventKey, type EventKeyKind } from '@holdfast/hold-store';
import { scanOn, type TestApi } from './test-api';

export type Reply = Awaited<ReturnType<TestApi['call']>>;

/** A small seeded generator, so a failing random scenario can be replayed. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Counts replies by status and error code, e.g. { '201': 1, '409 SEATS_UNAVAILABLE': 199 }. */
export function tally(replies: Reply[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of replies) {
    const key = r.status < 300 ? String(r.status) : `${r.status} ${r.body?.error?.code}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

export function holdPost(api: TestApi, eventId: string, customerId: string, body: unknown, headers?: Record<string, string>) {
  return api.call('POST', `/v1/events/${eventId}/holds`, { token: api.token('customer', customerId), body, headers });
}

/** The hold ids whose rows PostgreSQL has for an event. */
export async function holdRowIds(api: TestApi, eventId: string): Promise<string[]> {
  const rows = await api.rt.db.$queryRaw<{ id: string }[]>`SELECT id FROM holds WHERE event_id = ${eventId}::uuid ORDER BY id`;
  return rows.map((r) => r.id);
}

/** After the outbox is drained, PostgreSQL has a row for exactly these holds. */
export async function expectPersisted(api: TestApi, eventId: string, holdIds: string[]): Promise<void> {
  await api.rt.ctx.persister.flush();
  expect(await holdRowIds(api, eventId)).toEqual([...holdIds].sort());
}

/** Which hold owns each seat key in Redis (null when free). */
export async function seatOwners(api: TestApi, eventId: string, seatIds: string[]): Promise<Map<string, string | null>> {
  const k = eventKeys(eventId);
  const owners = seatIds.length ? await api.rt.redis.mget(...seatIds.map(k.seat)) : [];
  return new Map(seatIds.map((id, i) => [id, owners[i] ?? null]));
}

/** The seat map's status of every seat. */
export async function seatStatuses(api: TestApi, eventId: string): Promise<Map<string, string>> {
  const res = await api.call('GET', `/v1/events/${eventId}/seats`);
  expect(res.status).toBe(200);
  return new Map((res.body.seats as { id: string; status: string }[]).map((s) => [s.id, s.status]));
}

export async function ticketsAvailable(api: TestApi, eventId: string, index = 0): Promise<number> {
  const res = await api.call('GET', `/v1/events/${eventId}`);
  expect(res.status).toBe(200);
  return res.body.event.ticketTypes[index].available as number;
}

export const seatIdsOf = (hold: { items: { seatId?: string }[] }): string[] =>
  hold.items.map((i) => i.seatId).filter((s): s is string => typeof s === 'string');

const HOLD_KEY_KINDS = new Set<EventKeyKind | undefined>(['hold', 'seat', 'customer']);

/** The number of hold keys, seat keys and outbox entries Redis has for an event. */
export async function holdKeyCount(api: TestApi, eventId: string): Promise<number> {
  const k = eventKeys(eventId);
  let count = 0;
  let cursor = '0';
  do {
    const [next, keys] = await scanOn(api, cursor, 'MATCH', eventKeyPattern(eventId), 'COUNT', 1000);
    count += keys.filter((key) => HOLD_KEY_KINDS.has(parseEventKey(key)?.kind)).length;
    cursor = next;
  } while (cursor !== '0');
  return count + (await api.rt.redis.xlen(k.outbox));
}


/** The hold's row once it is EXPIRED in PostgreSQL, false before: a condition for `waitFor`. */
export async function expiredHoldRow(api: TestApi, holdId: string) {
  const row = await api.rt.db.hold.findUnique({ where: { id: holdId } });
  return row?.status === 'EXPIRED' && row;
}
