import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expectInvariants, freePort, recordMeasurements, createTestEvent, dropTestEvent, seatGrid, startApi, type TestApi, confirmVia, paymentIntentEvent, sign, sleep, isolatedDatabaseUrl, API_PROCESS_MAIN } from '@holdfast/test-kit';

const ROOT = path.join(__dirname, '..', '..', '..');

let api2: TestApi;
let api1: ChildProcess;
let api1Url: string;
const events: string[] = [];

beforeAll(async () => {
  api2 = await startApi({ DATABASE_URL: isolatedDatabaseUrl('sigstop') });
  const port = await freePort();
  api1 = spawn(process.execPath, ['--import', 'tsx', API_PROCESS_MAIN], {
    cwd: ROOT, env: { ...process.env, DATABASE_URL: api2.config.databaseUrl, PORT: String(port), LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  api1.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  api1.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const end = Date.now() + 30_000;
  while (!out.includes('listening')) {
    if (api1.exitCode !== null || Date.now() > end) throw new Error(`API child did not start: ${out}`);
    await sleep(50);
  }
  api1Url = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  api1.kill('SIGCONT');
  const exited = new Promise((r) => api1.once('exit', r));
  api1.kill('SIGTERM');
  await exited;
  for (const id of events) await dropTestEvent(api2, id);
  await api2.close();
});

async function call1(method: string, p: string, opts: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(api1Url + p, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('when the API is stopped between its Redis hold and its database write while the hold expires and another buyer holds and pays, then after SIGCONT the seat has exactly one order', async () => {
  let attempts = 0;
  for (;;) {
    attempts++;
    const { event, seats } = await createTestEvent(api2, { holdTtlSeconds: 2, seats: seatGrid(['P'], 1, 2, 'standard', 3000) });
    events.push(event.id);
    const seatId = seats[0]!.id;
    // Buyer A holds through API 1, which is frozen the moment it answers: its persister has not written the row yet.
    const a = await call1('POST', `/v1/events/${event.id}/holds`, { token: api2.token('customer', 'buyer-a'), body: { seatIds: [seatId] } });
    api1.kill('SIGSTOP');
    const stoppedAt = Date.now();
    expect(a.status).toBe(201);
    const holdA = a.body.hold as { id: string; expiresAt: string; totalCents: number };
    const rowAtStop = await api2.rt.db.hold.findUnique({ where: { id: holdA.id } });
    if (rowAtStop && attempts < 5) {
      api1.kill('SIGCONT');
      continue; // Missed the window (the row was written already); try again on a fresh event.
    }
    expect(rowAtStop).toBeNull();

    // A pays: Stripe's webhook reaches the frozen API 1 and waits there.
    const payload = JSON.stringify(paymentIntentEvent({ holdId: holdA.id, amount: holdA.totalCents, currency: 'usd' }));
    const paidA = call1('POST', '/v1/webhooks/stripe', {
      raw: payload, headers: { 'stripe-signature': sign(payload, api2.config.stripeWebhookSecret) },
    });
    // A's hold expires; buyer B holds the seat through API 2 and an integrator confirms B's payment.
    await sleep(Math.max(0, Date.parse(holdA.expiresAt) - Date.now()) + 200);
    const b = await api2.call('POST', `/v1/events/${event.id}/holds`, { token: api2.token('customer', 'buyer-b'), body: { seatIds: [seatId] } });
    expect(b.status).toBe(201);
    const orderB = await confirmVia(api2, b.body.hold.id);
    expect(orderB.status).toBe(201);

    api1.kill('SIGCONT');
    const resumedAt = Date.now();
    const webhook = await paidA;
    expect(webhook.status).toBe(200);
    // API 1's persister writes A's row late; it must not revive the hold.
    let rowA = null;
    for (let i = 0; i < 50 && !rowA; i++) {
      rowA = await api2.rt.db.hold.findUnique({ where: { id: holdA.id } });
      if (!rowA) await sleep(100);
    }
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
