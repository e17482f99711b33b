// Issue 29: the waiting room through HTTP on real Redis and PostgreSQL. Places
// drawn at random at the opening and in arrival order after it, admission paced
// on Redis's clock and never past maxActive, every way a pass ends admitting the
// next place, every refusal of a hold without a live pass, proofs of work, pause.
import { createHash } from 'node:crypto';
import { eventKeys } from '@holdfast/hold-store';
import { confirmVia, holdPost, redisTimeMs, startApi, useTestApi, type Reply, type TestApi } from '@holdfast/test-kit';

const ENV = { HOLD_RATE_LIMIT_PER_MINUTE: '100000' };
const { api, newEvent } = useTestApi(ENV);
const run = `${process.pid}-${Date.now().toString(36)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RoomOptions {
  admitPerMinute?: number; maxActive?: number; passSeconds?: number; preQueueSeconds?: number; challengeBits?: number;
  salesStartAt?: string | null; holdTtlSeconds?: number;
}

/** An event with general admission and a few seats, and a waiting room. */
async function roomEvent(o: RoomOptions = {}) {
  const { event, seats } = await newEvent({
    seats: [1, 2, 3, 4, 5, 6].map((number) => ({ section: 'Q', row: '1', number, tier: 'standard', priceCents: 1000 })),
    ticketTypes: [{ name: 'GA', priceCents: 500, capacity: 1000 }],
    maxTicketsPerCustomer: 10,
    holdTtlSeconds: o.holdTtlSeconds ?? 600,
    salesStartAt: o.salesStartAt ?? null,
    waitingRoom: {
      admitPerMinute: o.admitPerMinute ?? 1_000_000, maxActive: o.maxActive ?? 1_000_000, passSeconds: o.passSeconds ?? 600,
      preQueueSeconds: o.preQueueSeconds ?? 3600, challengeBits: o.challengeBits ?? 0,
    },
  });
  return { event, seats, ga: event.ticketTypes[0].id as string };
}

const join = (eventId: string, customer: string, body?: unknown) =>
  api.call('POST', `/v1/events/${eventId}/queue`, { token: api.token('customer', customer), body });
const me = (eventId: string, customer: string) =>
  api.call('GET', `/v1/events/${eventId}/queue/me`, { token: api.token('customer', customer) });
const adminQueue = (eventId: string) => api.call('GET', `/v1/admin/events/${eventId}/queue`, { token: api.token('admin') });
const patchQueue = (eventId: string, body: unknown) =>
  api.call('PATCH', `/v1/admin/events/${eventId}/queue`, { token: api.token('admin'), body });
const holdGa = (eventId: string, ga: string, customer: string, pass?: string, extra: Record<string, string> = {}) =>
  holdPost(api, eventId, customer, { ticketTypeId: ga, quantity: 1 }, { ...(pass ? { 'Holdfast-Queue-Pass': pass } : {}), ...extra });

/** Joins and expects to be admitted at once; answers the pass. */
async function admitted(eventId: string, customer: string): Promise<string> {
  const r = await join(eventId, customer);
  expect(r.status).toBe(200);
  expect(r.body.queue).toMatchObject({ state: 'admitted', position: 0, etaSeconds: 0 });
  return r.body.queue.pass;
}

/** Spearman's rank correlation of two rankings of the same n items (no ties). */
function spearman(a: number[], b: number[]): number {
  const n = a.length;
  let d2 = 0;
  for (let i = 0; i < n; i++) d2 += (a[i]! - b[i]!) ** 2;
  return 1 - (6 * d2) / (n * (n * n - 1));
}

test('when 500 customers join before the opening, then after it their positions are 1..500 each once and not in join order', async () => {
  const { event } = await roomEvent({ salesStartAt: new Date((await redisTimeMs(api.rt.redis)) + 3_600_000).toISOString(), admitPerMinute: 60 });
  // Paused: nobody is admitted at the opening, so every place stays to be read.
  expect((await patchQueue(event.id, { paused: true })).status).toBe(200);
  const customers = Array.from({ length: 500 }, (_, i) => `early-${i}-${run}`);
  for (const c of customers) {
    const r = await join(event.id, c);
    expect(r.status).toBe(200);
    expect(r.body.queue.state).toBe('waiting');
  }
  // Joining again keeps the place.
  const before = (await me(event.id, customers[7]!)).body.queue.position;
  expect((await join(event.id, customers[7]!)).body.queue.position).toBe(before);
  // Every join came before the opening; the seller now brings it forward to a moment from now.
  const start = (await redisTimeMs(api.rt.redis)) + 300;
  const moved = await api.call('PATCH', `/v1/admin/events/${event.id}`, { token: api.token('admin'), body: { salesStartAt: new Date(start).toISOString() } });
  expect(moved.status).toBe(200);

  while ((await redisTimeMs(api.rt.redis)) < start + 50) await sleep(100);
  const positions: number[] = [];
  for (const c of customers) {
    const r = await me(event.id, c);
    expect(r.body.queue.state).toBe('waiting');
    positions.push(r.body.queue.position);
  }
  expect([...positions].sort((x, y) => x - y)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
  // Under a random draw Spearman's rho has mean 0 and standard deviation 1/sqrt(499) ≈ 0.045: |rho| >= 0.5 is
  // an 11-sigma event (probability below 1e-27), while places in join order give rho = 1.
  const rho = spearman(customers.map((_, i) => i + 1), positions);
  expect(Math.abs(rho)).toBeLessThan(0.5);
  // The wait estimate grows with the position (60 a minute: a second a place).
  const last = customers[positions.indexOf(500)]!;
  expect((await me(event.id, last)).body.queue.etaSeconds).toBeGreaterThanOrEqual(499);
  expect((await adminQueue(event.id)).body).toEqual({
    waiting: 500, admitted: 0, active: 0, admitPerMinute: 60, maxActive: 1_000_000, paused: true, medianWaitSeconds: null,
  });
}, 120_000);

test('when customers join after the opening, then their places are in arrival order', async () => {
  const { event } = await roomEvent();
  await patchQueue(event.id, { paused: true });
  const customers = Array.from({ length: 20 }, (_, i) => `late-${i}-${run}`);
  for (const [i, c] of customers.entries()) {
    const r = await join(event.id, c);
    expect(r.body.queue).toMatchObject({ state: 'waiting', position: i + 1 });
  }
  for (const [i, c] of customers.entries()) expect((await me(event.id, c)).body.queue.position).toBe(i + 1);
  // Resumed: admitted in that order (the first ones first).
  await patchQueue(event.id, { paused: false, maxActive: 5 });
  const states = await Promise.all(customers.map(async (c) => (await me(event.id, c)).body.queue));
  expect(states.map((s) => s.state)).toEqual([...Array(5).fill('admitted'), ...Array(15).fill('waiting')]);
  expect(states.slice(5).map((s) => s.position)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
});

test('when many customers join at once, then never more than maxActive are admitted', async () => {
  const { event } = await roomEvent({ maxActive: 5 });
  const crowd = Array.from({ length: 40 }, (_, i) => `crowd-${i}-${run}`);
  const replies = await Promise.all(crowd.map((c) => join(event.id, c)));
  expect(replies.every((r) => r.status === 200)).toBe(true);
  // At 1,000,000 a minute the bucket refills within milliseconds: admission stops at maxActive only.
  let states: { state: string; position: number; pass?: string }[] = [];
  for (let round = 0; round < 10; round++) {
    states = (await Promise.all(crowd.map((c) => me(event.id, c)))).map((r) => r.body.queue);
    expect(states.filter((s) => s.state === 'admitted').length).toBeLessThanOrEqual(5);
    expect((await adminQueue(event.id)).body.active).toBeLessThanOrEqual(5);
    await sleep(20);
  }
  const admittedNow = states.filter((s) => s.state === 'admitted');
  expect(admittedNow).toHaveLength(5);
  expect(new Set(admittedNow.map((s) => s.pass)).size).toBe(5);
  expect(states.filter((s) => s.state === 'waiting').map((s) => s.position).sort((a, b) => a - b))
    .toEqual(Array.from({ length: 35 }, (_, i) => i + 1));
  expect((await adminQueue(event.id)).body).toMatchObject({ waiting: 35, admitted: 5, active: 5, maxActive: 5 });
});

test('when the room admits 120 a minute, then the places admitted follow that rate on Redis\'s clock', async () => {
  const { event } = await roomEvent({ admitPerMinute: 120 });
  await patchQueue(event.id, { paused: true });
  for (let i = 0; i < 40; i++) await join(event.id, `paced-${i}-${run}`);
  const t0Before = await redisTimeMs(api.rt.redis);
  const resumed = await patchQueue(event.id, { paused: false });
  const t0After = await redisTimeMs(api.rt.redis);
  // The one token kept while nobody waited is spent at once; then 2 a second.
  expect(resumed.body.admitted).toBe(1);
  let seen = 0;
  for (let k = 0; k < 16; k++) {
    await sleep(250);
    const before = await redisTimeMs(api.rt.redis);
    const { body } = await adminQueue(event.id);
    const after = await redisTimeMs(api.rt.redis);
    expect(body.admitted).toBeGreaterThanOrEqual(1 + Math.floor(((before - t0After) * 120) / 60_000));
    expect(body.admitted).toBeLessThanOrEqual(1 + Math.floor(((after - t0Before) * 120) / 60_000));
    expect(body.admitted).toBeGreaterThanOrEqual(seen);
    seen = body.admitted;
  }
  expect(seen).toBeGreaterThanOrEqual(8);
  // The seller sees the median wait of the places admitted: each joined before the resume, then waited its turn.
  const { body } = await adminQueue(event.id);
  expect(body.medianWaitSeconds).toBeGreaterThanOrEqual(1);
  expect(body.medianWaitSeconds).toBeLessThanOrEqual(30);
});

test('when a pass ends by release, confirm, hold expiry or passSeconds without a hold, then each end admits the next place', async () => {
  const { event, ga } = await roomEvent({ maxActive: 1, passSeconds: 30 });
  const [a, b, c] = ['rel', 'conf', 'next'].map((x) => `${x}-${run}`) as [string, string, string];
  const passA = await admitted(event.id, a);
  expect((await join(event.id, b)).body.queue).toMatchObject({ state: 'waiting', position: 1, etaSeconds: expect.any(Number) });
  expect((await join(event.id, c)).body.queue).toMatchObject({ state: 'waiting', position: 2 });

  // Release.
  const heldA = await holdGa(event.id, ga, a, passA);
  expect(heldA.status).toBe(201);
  expect((await me(event.id, b)).body.queue.state).toBe('waiting');
  expect((await api.call('DELETE', `/v1/holds/${heldA.body.hold.id}`, { token: api.token('customer', a) })).status).toBe(200);
  const passB = (await me(event.id, b)).body.queue;
  expect(passB).toMatchObject({ state: 'admitted', position: 0, pass: expect.any(String), passExpiresAt: expect.any(String) });
  expect((await me(event.id, a)).body.queue.state).toBe('ended');

  // Confirm.
  const heldB = await holdGa(event.id, ga, b, passB.pass);
  expect(heldB.status).toBe(201);
  expect((await me(event.id, c)).body.queue).toMatchObject({ state: 'waiting', position: 1 });
  expect((await confirmVia(api, heldB.body.hold.id)).status).toBe(201);
  expect((await me(event.id, c)).body.queue.state).toBe('admitted');
  expect((await me(event.id, b)).body.queue.state).toBe('ended');

  // Hold expiry (a one-second hold) and passSeconds without a hold, on an event of their own.
  const short = await roomEvent({ maxActive: 1, passSeconds: 30, holdTtlSeconds: 1 });
  const [d, e, f] = ['exp', 'idle', 'last'].map((x) => `${x}-${run}`) as [string, string, string];
  const passD = await admitted(short.event.id, d);
  await join(short.event.id, e);
  await join(short.event.id, f);
  const heldD = await holdGa(short.event.id, short.ga, d, passD);
  expect(heldD.status).toBe(201);
  const passE = (await me(short.event.id, e)).body.queue;
  expect(passE.state).toBe('waiting');
  while (Date.now() < Date.parse(heldD.body.hold.expiresAt) + 150) await sleep(50);
  const admittedE = (await me(short.event.id, e)).body.queue;
  expect(admittedE.state).toBe('admitted');
  // E holds nothing: after passSeconds its pass ends and F is admitted.
  expect(Date.parse(admittedE.passExpiresAt) - Date.now()).toBeGreaterThan(25_000);
  expect((await me(short.event.id, f)).body.queue.state).toBe('waiting');
  while (Date.now() < Date.parse(admittedE.passExpiresAt) + 200) await sleep(250);
  expect((await me(short.event.id, f)).body.queue.state).toBe('admitted');
  expect((await me(short.event.id, e)).body.queue.state).toBe('ended');
  const metrics = await (await fetch(`${api.url}/metrics`)).text();
  for (const reason of ['released', 'confirmed', 'hold_expired', 'timeout']) {
    expect(metrics).toMatch(new RegExp(`holdfast_queue_passes_ended_total\\{reason="${reason}"\\} [1-9]`));
  }
  expect(metrics).toMatch(/holdfast_queue_admitted_total [1-9]/);
  expect(metrics).toMatch(/holdfast_queue_wait_seconds_count [1-9]/);
}, 90_000);

test('when a hold comes without a live pass of its customer and event, then 403 QUEUE_PASS_REQUIRED names why and nothing is held', async () => {
  const { event, seats, ga } = await roomEvent({ maxActive: 2 });
  const other = await roomEvent();
  const [a, b] = [`pa-${run}`, `pb-${run}`];
  const passA = await admitted(event.id, a);
  const passB = await admitted(event.id, b);
  const passAOther = await admitted(other.event.id, a);
  const refused = async (r: Reply, reason: string) => {
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'QUEUE_PASS_REQUIRED', details: { reason } });
  };
  await refused(await holdGa(event.id, ga, a), 'missing');
  await refused(await holdPost(api, event.id, a, { seatIds: [seats[0]!.id] }), 'missing');
  await refused(await holdPost(api, event.id, a, { tier: 'standard', quantity: 1 }), 'missing');
  // The same through the Express steps (an Idempotency-Key takes a hold off the fast path).
  await refused(await holdGa(event.id, ga, a, undefined, { 'Idempotency-Key': `k-${run}` }), 'missing');
  await refused(await holdGa(event.id, ga, a, 'not-a-pass'), 'forged');
  await refused(await holdGa(event.id, ga, a, `qp_${event.id}_${'0'.repeat(32)}`), 'forged');
  await refused(await holdGa(event.id, ga, a, passAOther), 'other_event');
  await refused(await holdGa(event.id, ga, b, passA), 'other_customer');
  await refused(await holdPost(api, event.id, b, { seatIds: [seats[0]!.id] }, { 'Holdfast-Queue-Pass': passA }), 'other_customer');
  await refused(await holdPost(api, event.id, b, { tier: 'standard', quantity: 1 }, { 'Holdfast-Queue-Pass': passA }), 'other_customer');
  await refused(await holdGa(event.id, ga, b, passA, { 'Idempotency-Key': `k2-${run}` }), 'other_customer');
  // Nothing was held by any of them.
  expect((await api.call('GET', `/v1/events/${event.id}`)).body.event.ticketTypes[0].available).toBe(1000);
  expect((await api.call('GET', `/v1/events/${event.id}/seats`)).body.seats.every((s: { status: string }) => s.status === 'available')).toBe(true);

  // With its own pass each kind of hold is taken.
  expect((await holdPost(api, event.id, a, { seatIds: [seats[0]!.id] }, { 'Holdfast-Queue-Pass': passA })).status).toBe(201);
  expect((await holdPost(api, event.id, a, { tier: 'standard', quantity: 1 }, { 'Holdfast-Queue-Pass': passA })).status).toBe(201);
  const held = await holdGa(event.id, ga, b, passB, { 'Idempotency-Key': `k3-${run}` });
  expect(held.status).toBe(201);
  // Released: B's pass has ended.
  await api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', b) });
  await refused(await holdGa(event.id, ga, b, passB), 'ended');
  expect((await api.call('GET', `/v1/events/${event.id}`)).body.event.ticketTypes[0].available).toBe(1000);
  // An event without a waiting room asks for no pass, and has no queue.
  const plain = await newEvent({ ticketTypes: [{ name: 'GA', priceCents: 500, capacity: 10 }] });
  expect((await holdGa(plain.event.id, plain.event.ticketTypes[0].id, a)).status).toBe(201);
  expect((await join(plain.event.id, a)).body.error.code).toBe('QUEUE_NOT_FOUND');
});

/** A nonce whose proof has at least (or, with `fail`, fewer than) `bits` leading zero bits. */
function solve(eventId: string, customer: string, bits: number, fail = false, from = 0): string {
  for (let n = from; ; n++) {
    const digest = createHash('sha256').update(eventId + customer + String(n)).digest();
    let zeros = 0;
    for (const byte of digest) {
      if (byte === 0) { zeros += 8; continue; }
      zeros += Math.clz32(byte) - 24;
      break;
    }
    if ((zeros >= bits) !== fail) return String(n);
  }
}

test('when the room asks for a proof of work, then a solved nonce joins, a missing or wrong one answers 400, and a reused one keeps the pass but takes no new place', async () => {
  const { event, ga } = await roomEvent({ challengeBits: 10 });
  const c = `pow-${run}`;
  const missing = await join(event.id, c);
  expect(missing.status).toBe(400);
  expect(missing.body.error.details.fields[0].path).toBe('nonce');
  const wrong = await join(event.id, c, { nonce: solve(event.id, c, 10, true) });
  expect(wrong.status).toBe(400);
  const nonce = solve(event.id, c, 10);
  const ok = await join(event.id, c, { nonce });
  expect(ok.status).toBe(200);
  expect(ok.body.queue.state).toBe('admitted');
  // Joining again (a retry of a join that answered 503 sends the same proof) keeps the pass.
  const again = await join(event.id, c, { nonce });
  expect({ status: again.status, state: again.body.queue?.state, pass: again.body.queue?.pass }).toEqual({ status: 200, state: 'admitted', pass: ok.body.queue.pass });
  // Another customer's proof does not hold for this one.
  expect((await join(event.id, `pow2-${run}`, { nonce })).status).toBe(400);
  // Once the pass ended (its hold released), the proof used before takes no new place; a new one does.
  const held = await holdGa(event.id, ga, c, ok.body.queue.pass);
  expect(held.status).toBe(201);
  expect((await api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', c) })).status).toBe(200);
  expect((await me(event.id, c)).body.queue.state).toBe('ended');
  const replayed = await join(event.id, c, { nonce });
  expect(replayed.status).toBe(400);
  expect(replayed.body.error.details.fields[0].message).toMatch(/used before/);
  expect((await join(event.id, c, { nonce: solve(event.id, c, 10, false, Number(nonce) + 1) })).status).toBe(200);
});

test('when no queue call reaches the room for three minutes (an outage), then the next calls admit at most 5 s of the set pace, not the whole pause at once', async () => {
  const { event } = await roomEvent({ admitPerMinute: 600 });
  expect((await patchQueue(event.id, { paused: true })).status).toBe(200);
  const customers = Array.from({ length: 100 }, (_, i) => `gap-${i}-${run}`);
  for (const c of customers) expect((await join(event.id, c)).body.queue.state).toBe('waiting');
  expect((await patchQueue(event.id, { paused: false })).status).toBe(200);
  const before = (await adminQueue(event.id)).body.admitted as number;
  // The bucket was last filled three minutes ago: what a room reads after every call stopped that long.
  await api.rt.redis.hset(eventKeys(event.id).queue[0], 'at', (await redisTimeMs(api.rt.redis)) - 180_000);
  const after = (await adminQueue(event.id)).body.admitted as number;
  // 600 a minute is 10 a second: 5 s of it, plus a second's tick that may land in between.
  expect(after - before).toBeGreaterThanOrEqual(50);
  expect(after - before).toBeLessThanOrEqual(61);
});

test('when the seller pauses the room, then nobody is admitted until it resumes, and each change is audited', async () => {
  const { event } = await roomEvent();
  const paused = await patchQueue(event.id, { paused: true });
  expect(paused.body).toMatchObject({ paused: true, waiting: 0 });
  for (let i = 0; i < 3; i++) expect((await join(event.id, `pause-${i}-${run}`)).body.queue.state).toBe('waiting');
  expect((await adminQueue(event.id)).body).toMatchObject({ waiting: 3, admitted: 0, active: 0, paused: true });
  await sleep(300);
  expect((await adminQueue(event.id)).body).toMatchObject({ waiting: 3, admitted: 0, active: 0, paused: true });
  const resumed = await patchQueue(event.id, { paused: false, admitPerMinute: 6000 });
  // The bucket kept its one token while paused; then 100 a second.
  expect(resumed.body).toMatchObject({ waiting: 2, admitted: 1, active: 1, paused: false, admitPerMinute: 6000 });
  expect((await api.call('GET', `/v1/events/${event.id}`)).body.event.waitingRoom.admitPerMinute).toBe(6000);
  await sleep(100);
  for (let i = 0; i < 3; i++) expect((await me(event.id, `pause-${i}-${run}`)).body.queue.state).toBe('admitted');
  const audit = await api.rt.db.auditEntry.findMany({ where: { eventId: event.id, action: 'queue.updated' }, orderBy: { at: 'asc' } });
  expect(audit.map((x) => x.details)).toEqual([{ paused: true }, { paused: false, admitPerMinute: 6000 }]);
  expect((await patchQueue(event.id, {})).status).toBe(400);
  expect((await patchQueue(event.id, { maxActive: 0 })).status).toBe(400);
  expect((await api.call('PATCH', `/v1/admin/events/${event.id}/queue`, { token: api.token('customer'), body: { paused: true } })).status).toBe(403);
});

test('when a customer joins before salesStartAt − preQueueSeconds, then 409 SALES_CLOSED with Redis\'s time; a customer not in the room reads state none', async () => {
  const start = (await redisTimeMs(api.rt.redis)) + 3_600_000;
  const { event } = await roomEvent({ salesStartAt: new Date(start).toISOString(), preQueueSeconds: 60 });
  const r = await join(event.id, `soon-${run}`);
  expect(r.status).toBe(409);
  expect(r.body.error).toMatchObject({ code: 'SALES_CLOSED', details: { salesStartAt: new Date(start).toISOString() } });
  expect(Date.parse(r.body.error.details.serverTime)).toBeLessThan(start - 60_000);
  expect((await me(event.id, `soon-${run}`)).body.queue).toEqual({ state: 'none', position: 0, etaSeconds: 0 });
});

test('when a buyer ends or extends a hold taken with an earlier pass, or confirms it again, then their later pass stays as it is', async () => {
  const { event, ga } = await roomEvent({ passSeconds: 600 });
  const c = `later-${run}`;
  const first = await admitted(event.id, c);
  const kept = await holdGa(event.id, ga, c, first);
  const bought = await holdGa(event.id, ga, c, first);
  expect([kept.status, bought.status]).toEqual([201, 201]);
  // Buying one ends the pass they were taken with; the other hold stays live.
  expect((await confirmVia(api, bought.body.hold.id)).status).toBe(201);
  expect((await me(event.id, c)).body.queue.state).toBe('ended');
  const second = (await join(event.id, c)).body.queue;
  expect(second).toMatchObject({ state: 'admitted', pass: expect.any(String) });
  expect(second.pass).not.toBe(first);

  // Extending, releasing and confirming again holds of the first pass leave the second alone.
  expect((await api.call('POST', `/v1/holds/${kept.body.hold.id}/extend`, { token: api.token('customer', c) })).status).toBe(200);
  expect((await me(event.id, c)).body.queue).toMatchObject({ state: 'admitted', pass: second.pass, passExpiresAt: second.passExpiresAt });
  expect((await api.call('DELETE', `/v1/holds/${kept.body.hold.id}`, { token: api.token('customer', c) })).status).toBe(200);
  expect((await confirmVia(api, bought.body.hold.id)).status).toBe(200);
  expect((await me(event.id, c)).body.queue).toMatchObject({ state: 'admitted', pass: second.pass, passExpiresAt: second.passExpiresAt });
  // A hold taken with the second pass still ends it when released.
  const third = await holdGa(event.id, ga, c, second.pass);
  expect(third.status).toBe(201);
  expect((await api.call('DELETE', `/v1/holds/${third.body.hold.id}`, { token: api.token('customer', c) })).status).toBe(200);
  expect((await me(event.id, c)).body.queue.state).toBe('ended');
});

test('when a buyer holds with their pass and extends the hold, then the pass ends with the hold, at its new time', async () => {
  const { event, ga } = await roomEvent({ maxActive: 1, passSeconds: 30 });
  const c = `ext-${run}`;
  const pass = await admitted(event.id, c);
  expect(Date.parse((await me(event.id, c)).body.queue.passExpiresAt)).toBeLessThan(Date.now() + 31_000);
  const held = await holdGa(event.id, ga, c, pass);
  expect(held.status).toBe(201);
  // Holding: the pass now lasts as long as the hold (600 s), not passSeconds.
  expect((await me(event.id, c)).body.queue.passExpiresAt).toBe(held.body.hold.expiresAt);
  await sleep(1100);
  const extended = await api.call('POST', `/v1/holds/${held.body.hold.id}/extend`, { token: api.token('customer', c) });
  expect(extended.status).toBe(200);
  expect(Date.parse(extended.body.hold.expiresAt)).toBeGreaterThan(Date.parse(held.body.hold.expiresAt));
  expect((await me(event.id, c)).body.queue.passExpiresAt).toBe(extended.body.hold.expiresAt);
});

test('when maxActive holds admission below the set rate, then the wait estimate follows the measured pace', async () => {
  const { event, ga } = await roomEvent({ admitPerMinute: 6000, maxActive: 1 });
  const line = Array.from({ length: 20 }, (_, i) => `pace-${i}-${run}`);
  for (const c of line) await join(event.id, c);
  // One buyer in at a time, each done (hold, release) about a second after being let in: about 60 a minute, not 6,000.
  const started = Date.now();
  let turn = 0;
  while (Date.now() - started < 11_500) {
    const c = line[turn]!;
    const s = (await me(event.id, c)).body.queue;
    expect(s.state).toBe('admitted');
    await sleep(900);
    const held = await holdGa(event.id, ga, c, s.pass);
    expect(held.status).toBe(201);
    await api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', c) });
    turn += 1;
  }
  const waiting = (await me(event.id, line[turn + 5]!)).body.queue;
  expect(waiting.state).toBe('waiting');
  // At the set rate 6 places would take under a second; at the measured pace (about one a second) several seconds.
  expect(waiting.etaSeconds).toBeGreaterThanOrEqual(Math.floor(waiting.position / 2));
  expect(waiting.position).toBeGreaterThanOrEqual(5);
}, 60_000);

/** Places the room admitted so far, read straight from Redis (no queue script runs, so admission is not moved by the read). */
async function admittedInRedis(eventId: string): Promise<number> {
  return Number((await api.rt.redis.hget(eventKeys(eventId).queue[0]!, 'admitted')) ?? 0);
}

test('when the room admits 120 a minute and no buyer asks anything, then the tick admits at that rate and the stream\'s count places each buyer', async () => {
  const { event } = await roomEvent({ admitPerMinute: 120 });
  await patchQueue(event.id, { paused: true });
  const line = Array.from({ length: 30 }, (_, i) => `tick-${i}-${run}`);
  const joined: { position: number; admitted: number }[] = [];
  for (const c of line) joined.push((await join(event.id, c)).body.queue);
  expect(joined.map((q) => q.position)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  expect(joined.every((q) => q.admitted === 0)).toBe(true);
  const t0Before = await redisTimeMs(api.rt.redis);
  expect((await patchQueue(event.id, { paused: false })).body.admitted).toBe(1);
  const t0After = await redisTimeMs(api.rt.redis);
  const ticksBefore = api.rt.ctx.queueTicker.statsOf(event.id);
  // Nobody asks anything for 5 seconds: no join, no queue/me, no admin read.
  const counts: number[] = [];
  for (let k = 0; k < 10; k++) {
    await sleep(500);
    counts.push(await admittedInRedis(event.id));
  }
  const tEnd = await redisTimeMs(api.rt.redis);
  const admitted = counts[counts.length - 1]!;
  // 2 a second on Redis's clock: never ahead of the bucket, and at most a tick (a second: 2 places) behind it.
  expect(admitted).toBeLessThanOrEqual(1 + Math.floor(((tEnd - t0Before) * 120) / 60_000));
  expect(admitted).toBeGreaterThanOrEqual(1 + Math.floor(((tEnd - t0After) * 120) / 60_000) - 3);
  expect(admitted).toBeGreaterThanOrEqual(8);
  expect(counts.every((n, i) => i === 0 || n >= counts[i - 1]!)).toBe(true);
  const ticked = api.rt.ctx.queueTicker.statsOf(event.id);
  expect(ticked.admitted - ticksBefore.admitted).toBe(admitted - 1);
  expect(ticked.calls - ticksBefore.calls).toBeGreaterThanOrEqual(4);
  expect(ticked.calls - ticksBefore.calls).toBeLessThanOrEqual(7);
  // A page that kept its join's answer knows its place from the stream's count alone: position − (admitted now − admitted then).
  for (const [i, c] of line.entries()) {
    const q = (await me(event.id, c)).body.queue;
    const head = q.state === 'waiting' ? q.admitted : await admittedInRedis(event.id);
    const computed = joined[i]!.position - (head - joined[i]!.admitted);
    if (q.state === 'waiting') expect(q.position).toBe(computed);
    else expect(computed).toBeLessThanOrEqual(0);
  }
}, 30_000);

test('when 10 or 2,000 buyers wait, then the tick makes the same calls a second for each room, and stops once nobody waits', async () => {
  const small = await roomEvent({ admitPerMinute: 60 });
  const big = await roomEvent({ admitPerMinute: 60 });
  const crowd = Array.from({ length: 2000 }, (_, i) => `many-${i}-${run}`);
  for (let i = 0; i < crowd.length; i += 20) {
    const replies = await Promise.all(crowd.slice(i, i + 20).map((c) => join(big.event.id, c)));
    expect(replies.filter((r) => r.status !== 200).map((r) => `${r.status} ${JSON.stringify(r.body)}`)).toEqual([]);
  }
  for (let i = 0; i < 10; i++) expect((await join(small.event.id, `few-${i}-${run}`)).status).toBe(200);
  const ticker = api.rt.ctx.queueTicker;
  const [s0, b0] = [ticker.statsOf(small.event.id), ticker.statsOf(big.event.id)];
  await sleep(4_000);
  const [s1, b1] = [ticker.statsOf(small.event.id), ticker.statsOf(big.event.id)];
  const smallCalls = s1.calls - s0.calls;
  const bigCalls = b1.calls - b0.calls;
  // About one call a second for each room, 200 times the buyers or not (both rooms are ticked in the same rounds).
  expect(smallCalls).toBeGreaterThanOrEqual(3);
  expect(smallCalls).toBeLessThanOrEqual(5);
  expect(Math.abs(bigCalls - smallCalls)).toBeLessThanOrEqual(1);
  // And each admitted at the set rate (a second a place), whatever the crowd.
  expect(Math.abs((b1.admitted - b0.admitted) - (s1.admitted - s0.admitted))).toBeLessThanOrEqual(1);
  // The small room is emptied at once (its 9 waiting admitted): the tick sees nobody waiting and forgets it.
  await patchQueue(small.event.id, { admitPerMinute: 1_000_000 });
  const deadline = Date.now() + 5_000;
  while (ticker.watching(small.event.id) && Date.now() < deadline) await sleep(100);
  expect(ticker.watching(small.event.id)).toBe(false);
  const stopped = ticker.statsOf(small.event.id).calls;
  await sleep(1_500);
  expect(ticker.statsOf(small.event.id).calls).toBe(stopped);
  expect(ticker.watching(big.event.id)).toBe(true);
  // Closing the big room's sale stops its tick too.
  expect((await api.call('PATCH', `/v1/admin/events/${big.event.id}`, { token: api.token('admin'), body: { salesStatus: 'closed' } })).status).toBe(200);
  const closedBy = Date.now() + 5_000;
  while (ticker.watching(big.event.id) && Date.now() < closedBy) await sleep(100);
  expect(ticker.watching(big.event.id)).toBe(false);
}, 120_000);

test('when two API processes tick the same room, then it admits at the set rate, not twice it', async () => {
  const second: TestApi = await startApi(ENV);
  try {
    const { event } = await roomEvent({ admitPerMinute: 120 });
    await patchQueue(event.id, { paused: true });
    // Half the buyers join through each process: both know the room and tick it.
    for (let i = 0; i < 40; i++) {
      const through = i % 2 === 0 ? api : second;
      const r = await through.call('POST', `/v1/events/${event.id}/queue`, { token: through.token('customer', `two-${i}-${run}`) });
      expect({ join: i, status: r.status, error: r.status === 200 ? null : r.body }).toEqual({ join: i, status: 200, error: null });
    }
    expect(api.rt.ctx.queueTicker.watching(event.id)).toBe(true);
    expect(second.rt.ctx.queueTicker.watching(event.id)).toBe(true);
    const [a0, b0] = [api.rt.ctx.queueTicker.statsOf(event.id), second.rt.ctx.queueTicker.statsOf(event.id)];
    const t0Before = await redisTimeMs(api.rt.redis);
    expect((await patchQueue(event.id, { paused: false })).body.admitted).toBe(1);
    const t0After = await redisTimeMs(api.rt.redis);
    await sleep(5_000);
    const admitted = await admittedInRedis(event.id);
    const tEnd = await redisTimeMs(api.rt.redis);
    const [a1, b1] = [api.rt.ctx.queueTicker.statsOf(event.id), second.rt.ctx.queueTicker.statsOf(event.id)];
    // Both ticked, about once a second each...
    expect(a1.calls - a0.calls).toBeGreaterThanOrEqual(4);
    expect(b1.calls - b0.calls).toBeGreaterThanOrEqual(4);
    // ...and between them admitted what the bucket allows at 120 a minute (2 a second), not 4 a second.
    expect(admitted).toBeLessThanOrEqual(1 + Math.floor(((tEnd - t0Before) * 120) / 60_000));
    expect(admitted).toBeGreaterThanOrEqual(1 + Math.floor(((tEnd - t0After) * 120) / 60_000) - 3);
    expect((a1.admitted - a0.admitted) + (b1.admitted - b0.admitted)).toBe(admitted - 1);
  } finally {
    await second.close();
  }
}, 60_000);

test('when nothing calls a room any more, then its keys expire a day or two after its last call; each call renews them, and the tick keeps a room with buyers waiting', async () => {
  const DAY = 86_400_000;
  const { event } = await roomEvent({ maxActive: 1, challengeBits: 1 });
  const nonce = (c: string) => solve(event.id, c, 1);
  const [a, b] = [`ttl-a-${run}`, `ttl-b-${run}`];
  expect((await join(event.id, a, { nonce: nonce(a) })).body.queue.state).toBe('admitted');
  expect((await join(event.id, b, { nonce: nonce(b) })).body.queue.state).toBe('waiting');
  const keys = [...eventKeys(event.id).queue, eventKeys(event.id).queueProofs];
  const ttls = async () => Promise.all(keys.map((k) => api.rt.redis.pttl(k)));
  // cfg, pre (empty: gone), line, active, pass, at, proofs: every key there expires in (1 day, 2 days].
  const present = (await ttls()).filter((t) => t !== -2);
  expect(present.length).toBeGreaterThanOrEqual(6);
  for (const t of present) {
    expect(t).toBeGreaterThan(2 * DAY - 60_000);
    expect(t).toBeLessThanOrEqual(2 * DAY);
  }
  // As if a day and a half went by: the next call renews the room's keys (the proofs taken: the next join).
  const room = keys.slice(0, 6);
  const roomTtls = async () => (await ttls()).slice(0, 6).filter((x) => x !== -2);
  for (const k of keys) await api.rt.redis.pexpire(k, DAY / 2);
  expect((await me(event.id, b)).body.queue.state).toBe('waiting');
  for (const t of await roomTtls()) expect(t).toBeGreaterThan(2 * DAY - 60_000);
  expect((await join(event.id, `ttl-c-${run}`, { nonce: nonce(`ttl-c-${run}`) })).status).toBe(200);
  expect(await api.rt.redis.pttl(keys[6]!)).toBeGreaterThan(2 * DAY - 60_000);
  // Nearly expired while B waits: the tick (every second, nobody asking) renews them.
  for (const k of room) await api.rt.redis.pexpire(k, 3_000);
  await sleep(1_500);
  for (const t of await roomTtls()) expect(t).toBeGreaterThan(2 * DAY - 60_000);
  // Once nobody waits (B and C admitted: room for 3), the tick stops; a room nobody calls then goes.
  await patchQueue(event.id, { maxActive: 3 });
  expect((await me(event.id, b)).body.queue.state).toBe('admitted');
  const deadline = Date.now() + 5_000;
  while (api.rt.ctx.queueTicker.watching(event.id) && Date.now() < deadline) await sleep(100);
  expect(api.rt.ctx.queueTicker.watching(event.id)).toBe(false);
  for (const k of keys) await api.rt.redis.pexpire(k, 200);
  await sleep(1_500);
  expect((await ttls()).every((t) => t === -2)).toBe(true);
  expect((await me(event.id, a)).body.queue.state).toBe('none');
}, 30_000);
