// A crash in the middle of a confirm batch: a separate API process is killed with SIGKILL
// while its batch has written some orders (inside the batch's one statement) and waits on a
// row lock for the next. Nothing of the batch may be seen half-written, and every payer's
// retry (through another API process) gets its order or a clear answer.
import pg from 'pg';
import { expectInvariants, recordMeasurements, seatGrid, useTestApi, confirmVia, holdSeats, rid, sleep, waitFor, ApiProcess } from '@holdfast/test-kit';

let child: ApiProcess;
// Declared before useTestApi's own afterAll (which drops the events and closes API 2), so the child ends first.
afterAll(async () => { await child?.endWith('SIGKILL'); });
const { api: api2, newEvent } = useTestApi();
beforeAll(async () => {
  child = await ApiProcess.start({
    DATABASE_URL: api2.config.databaseUrl,
    // The batches here wait on rows this test keeps locked for a second or more: a statement
    // timeout of 30 s gives the batch its full 5 s lock wait (by default a third of 1.5 s).
    DATABASE_QUERY_TIMEOUT_MS: '30000',
  });
});

/** A confirm sent to the child; a connection the kill cuts answers null. */
function confirmOnChild(holdId: string, reference: string): Promise<number | null> {
  return fetch(`${child.url}/v1/holds/${holdId}/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${api2.token('service', 'integrator')}` },
    body: JSON.stringify({ paymentReference: reference }),
  }).then((r) => r.status, () => null);
}

/** Backends of this database running a confirm batch and waiting for a lock. */
async function batchesWaitingOnLocks(client: pg.Client): Promise<number[]> {
  const r = await client.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
       AND query LIKE '%holdfast_confirm_batch%' AND wait_event_type = 'Lock'`,
  );
  return r.rows.map((row) => row.pid);
}

test('when the API is killed (SIGKILL) while a confirm batch is half done, then no order is half-written and every payer\'s retry gets its order', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 10) });
  const holds = await Promise.all(seats.map((s, i) => holdSeats(api2, event.id, `buyer-${i}`, [s.id])));
  await api2.rt.ctx.persister.flush([event.id]);
  // A: the first batch waits on A's row; B: the second batch waits on B's row after the confirms before it.
  const [a, b, ...rest] = holds;
  const before = rest.slice(0, 4);
  const after = rest.slice(4);
  const lockA = new pg.Client({ connectionString: api2.config.databaseUrl });
  const lockB = new pg.Client({ connectionString: api2.config.databaseUrl });
  const observer = new pg.Client({ connectionString: api2.config.databaseUrl });
  await Promise.all([lockA.connect(), lockB.connect(), observer.connect()]);
  try {
    await lockA.query('BEGIN');
    await lockA.query('SELECT 1 FROM holds WHERE id = $1 FOR UPDATE', [a!.id]);
    await lockB.query('BEGIN');
    await lockB.query('SELECT 1 FROM holds WHERE id = $1 FOR UPDATE', [b!.id]);

    const references = new Map(holds.map((h) => [h.id, rid('pay')]));
    const sent: Promise<number | null>[] = [confirmOnChild(a!.id, references.get(a!.id)!)];
    await waitFor('the first batch to wait on A', async () => (await batchesWaitingOnLocks(observer)).length === 1, { timeoutMs: 20_000, intervalMs: 20 });
    // These gather behind the first batch, B among them after four others (the pauses let each
    // group reach the child in that order: its queue cannot be watched from here).
    for (const h of before) sent.push(confirmOnChild(h.id, references.get(h.id)!));
    await sleep(150);
    sent.push(confirmOnChild(b!.id, references.get(b!.id)!));
    await sleep(150);
    for (const h of after) sent.push(confirmOnChild(h.id, references.get(h.id)!));
    await sleep(500);
    await lockA.query('COMMIT');
    // A's batch commits and answers; only after that is a batch seen waiting on a lock surely the
    // second one (right after the COMMIT, pg_stat_activity may still show A's batch waiting).
    await sent[0];
    // The second batch has run its confirms up to B and waits on B's row: half done.
    const [pid] = await waitFor('the second batch to wait on B', async () => {
      const pids = await batchesWaitingOnLocks(observer);
      return pids.length === 1 && pids;
    }, { timeoutMs: 20_000, intervalMs: 20 });
    const written = await observer.query('SELECT count(*)::int AS n FROM orders WHERE event_id = $1', [event.id]);
    expect(written.rows[0].n).toBe(1); // only A's batch is committed; the half-done batch is invisible

    await child.endWith('SIGKILL');
    const answers = await Promise.all(sent);
    expect(answers[0]).toBe(201); // A answered before the kill
    expect(answers.slice(1).every((s) => s === null)).toBe(true); // the rest never got an answer

    // The dead process's database session finishes its statement when B's lock goes: all or nothing.
    await lockB.query('COMMIT');
    await waitFor('the orphaned batch to end', async () => {
      const r = await observer.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
      return r.rowCount === 0;
    }, { timeoutMs: 20_000, intervalMs: 20 });
    const ordered = await observer.query<{ hold_id: string; number: string }>(
      'SELECT hold_id, number FROM orders WHERE event_id = $1 AND hold_id <> $2', [event.id, a!.id],
    );
    expect([0, 9]).toContain(ordered.rowCount); // the whole batch or none of it
    for (const row of ordered.rows) expect(row.number).toMatch(/^HF-\d{4}-\d{6,}$/);

    // Every payer's integrator retries through the other API process: its order, 201 or 200.
    for (const h of [b!, ...rest]) {
      const retry = await confirmVia(api2, h.id, references.get(h.id)!);
      expect(retry.status).toBe(ordered.rowCount === 9 ? 200 : 201);
      expect(retry.body.order).toMatchObject({ holdId: h.id, paymentReference: references.get(h.id) });
    }
    expect(await api2.rt.db.order.count({ where: { eventId: event.id } })).toBe(10);
    recordMeasurements('confirm-batch-kill', { orphanedBatchCommitted: ordered.rowCount === 9, ordersOfTheBatch: ordered.rowCount });
    await expectInvariants(api2.rt.db, event.id);
  } finally {
    await Promise.all([lockA.end(), lockB.end(), observer.end()]);
  }
});
