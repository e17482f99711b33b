// Issue 15, point 6: the hold outbox is never trimmed. While PostgreSQL does not take
// the holds' rows, each event's outbox grows to HOLD_OUTBOX_MAX_PENDING entries and
// then new holds answer 503 (nothing written), so no hold answered 201 is ever lost.
import pg from 'pg';
import { expectInvariants, isolatedDatabaseUrl, seatGrid, useTestApi, waitFor } from '@holdfast/test-kit';

const LIMIT = 5;
// Its own database: the holds table is locked against writes for a while.
const { api, newEvent } = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('backlog'), HOLD_OUTBOX_MAX_PENDING: String(LIMIT) });

/** Stops every write to the holds table (reads go on) until the returned release runs. */
async function blockHoldWrites(): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: api.config.databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE holds IN EXCLUSIVE MODE');
  return async () => {
    await client.query('ROLLBACK');
    await client.end();
  };
}

function hold(eventId: string, customer: string, body: object) {
  return api.call('POST', `/v1/events/${eventId}/holds`, { token: api.token('customer', customer), body });
}

test('when PostgreSQL stops taking holds, then holds past HOLD_OUTBOX_MAX_PENDING answer 503 hold_backlog_full and every 201 hold reaches PostgreSQL once it is back', async () => {
  const { event, seats } = await newEvent({
    seats: seatGrid(['A'], 1, 10), ticketTypes: [{ name: 'GA', priceCents: 1500, capacity: 50 }],
  });
  const tt = event.ticketTypes[0].id as string;
  // The event is known to the API (catalog, Redis primed) before PostgreSQL stops taking writes.
  expect((await hold(event.id, 'warm-up', { seatIds: [seats[9]!.id] })).status).toBe(201);
  await api.rt.ctx.persister.flush([event.id]);
  expect(await api.rt.ctx.store.outboxLength(event.id)).toBe(0);

  const release = await blockHoldWrites();
  let released = false;
  try {
    const answered: { status: number; holdId?: string; reason?: string; retryAfter: string | null }[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await hold(event.id, `buyer-${i}`, { seatIds: [seats[i]!.id] });
      answered.push({ status: res.status, holdId: res.body.hold?.id, reason: res.body.error?.details?.reason, retryAfter: res.headers.get('retry-after') });
    }
    const ga = await hold(event.id, 'ga-buyer', { ticketTypeId: tt, quantity: 2 });

    expect(answered.map((a) => a.status)).toEqual([...Array(LIMIT).fill(201), 503, 503]);
    for (const refused of answered.slice(LIMIT)) {
      expect(refused).toMatchObject({ reason: 'hold_backlog_full', retryAfter: expect.stringMatching(/^[1-9][0-9]*$/) });
    }
    expect(ga.status).toBe(503);
    expect(ga.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { reason: 'hold_backlog_full' } });
    expect(await api.rt.ctx.store.outboxLength(event.id)).toBe(LIMIT);
    // A refusal wrote nothing: the refused seats are still free in Redis.
    const states = await api.rt.ctx.store.seatStates(event.id);
    expect(states.held.has(seats[LIMIT]!.id)).toBe(false);
    expect(states.held.has(seats[LIMIT + 1]!.id)).toBe(false);

    await release();
    released = true;
    const created = answered.filter((a) => a.status === 201).map((a) => a.holdId!);
    let rows: { id: string }[] = [];
    await waitFor('every 201 hold to reach PostgreSQL', async () => {
      await api.rt.ctx.persister.flush([event.id]);
      rows = await api.rt.db.$queryRaw<{ id: string }[]>`SELECT id FROM holds WHERE id = ANY(${created}::text[])`;
      return rows.length === created.length;
    }, { timeoutMs: 10_000, intervalMs: 100 });
    expect(rows.map((r) => r.id).sort()).toEqual([...created].sort());
    expect(await api.rt.ctx.store.outboxLength(event.id)).toBe(0);

    // With the backlog written, holds are taken again.
    expect((await hold(event.id, `buyer-${LIMIT}`, { seatIds: [seats[LIMIT]!.id] })).status).toBe(201);
    expect((await hold(event.id, 'ga-buyer', { ticketTypeId: tt, quantity: 2 })).status).toBe(201);
  } finally {
    if (!released) await release();
  }
  await api.rt.ctx.persister.flush([event.id]);
  await expectInvariants(api.rt.db, event.id);
});
