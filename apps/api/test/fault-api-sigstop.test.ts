import { expectInvariants, recordMeasurements, seatGrid, useTestApi, confirmVia, paymentIntentEvent, sign, sleepUntil, waitFor, isolatedDatabaseUrl, ApiProcess } from '@holdfast/test-kit';

let api1: ApiProcess;
// Declared before useTestApi's own afterAll (which drops the events and closes API 2), so API 1 ends first.
afterAll(async () => { await api1?.stop('SIGTERM'); });
const { api: api2, newEvent } = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('sigstop') });
beforeAll(async () => { api1 = await ApiProcess.start({ DATABASE_URL: api2.config.databaseUrl }); });

async function call1(method: string, p: string, opts: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(api1.url + p, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('when the API is stopped between its Redis hold and its database write while the hold expires and another buyer holds and pays, then after SIGCONT the seat has exactly one order', async () => {
  let attempts = 0;
  for (;;) {
    attempts++;
    const { event, seats } = await newEvent({ holdTtlSeconds: 2, seats: seatGrid(['P'], 1, 2, 'standard', 3000) });
    const seatId = seats[0]!.id;
    // Buyer A holds through API 1, which is frozen the moment it answers: its persister has not written the row yet.
    const a = await call1('POST', `/v1/events/${event.id}/holds`, { token: api2.token('customer', 'buyer-a'), body: { seatIds: [seatId] } });
    api1.proc.kill('SIGSTOP');
    const stoppedAt = Date.now();
    expect(a.status).toBe(201);
    const holdA = a.body.hold as { id: string; expiresAt: string; totalCents: number };
    const rowAtStop = await api2.rt.db.hold.findUnique({ where: { id: holdA.id } });
    if (rowAtStop && attempts < 5) {
      api1.proc.kill('SIGCONT');
      continue; // Missed the window (the row was written already); try again on a fresh event.
    }
    expect(rowAtStop).toBeNull();

    // A pays: Stripe's webhook reaches the frozen API 1 and waits there.
    const payload = JSON.stringify(paymentIntentEvent({ holdId: holdA.id, amount: holdA.totalCents, currency: 'usd' }));
    const paidA = call1('POST', '/v1/webhooks/stripe', {
      raw: payload, headers: { 'stripe-signature': sign(payload, api2.config.stripeWebhookSecret) },
    });
    // A's hold expires; buyer B holds the seat through API 2 and an integrator confirms B's payment.
    await sleepUntil(holdA.expiresAt, 200);
    const b = await api2.call('POST', `/v1/events/${event.id}/holds`, { token: api2.token('customer', 'buyer-b'), body: { seatIds: [seatId] } });
    expect(b.status).toBe(201);
    const orderB = await confirmVia(api2, b.body.hold.id);
    expect(orderB.status).toBe(201);

    api1.proc.kill('SIGCONT');
    const resumedAt = Date.now();
    const webhook = await paidA;
    expect(webhook.status).toBe(200);
    // API 1's persister writes A's row late; it must not revive the hold.
    const rowA = await waitFor('API 1 to write A\'s row', () => api2.rt.db.hold.findUnique({ where: { id: holdA.id } }), { timeoutMs: 5000, intervalMs: 100 })
      .catch(() => null);
    const lines = await api2.rt.db.orderItem.findMany({ where: { seatId } });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.orderId).toBe(orderB.body.order.id);
    expect(await api2.rt.db.order.count({ where: { holdId: holdA.id } })).toBe(0);
    const payments = await api2.rt.db.payment.findMany({ where: { holdId: holdA.id } });
    expect(payments.map((p) => p.status)).toEqual(['REFUND_REQUIRED']);
    expect(rowA?.status).not.toBe('CONFIRMED');
    await expectInvariants(api2.rt.db, event.id);
    const seatRow = await api2.rt.db.seat.findUnique({ where: { id: seatId } });
    expect(seatRow!.status).toBe('SOLD');
    recordMeasurements('api-sigstop', {
      attemptsToHitWindow: attempts, apiStoppedMs: resumedAt - stoppedAt, holdARowAtStop: rowAtStop === null ? 'absent' : 'present',
      holdAStatusAfter: rowA?.status ?? 'absent', paymentA: payments[0]?.status, paymentAReason: payments[0]?.reason,
      ordersForSeat: lines.length, ordersLost: 0,
    });
    return;
  }
});
