// The event stream while its Redis (a redis-server of the test's own) is away:
// it answers 503 at once instead of hanging, and a subscription that failed
// then is never left dead: once Redis is back, a new reader hears live changes.
import { eventKeys, masters } from '@holdfast/hold-store';
import { expectInvariants, recordMeasurements, createTestEvent, dropTestEvent, seatGrid, useTestApi, waitFor } from '@holdfast/test-kit';

/** "At once": generous against a loaded machine; the measured times are printed. */
const BOUND_MS = 5000;

const { api, redis } = useTestApi({}, { privateRedis: true });

/** Opens the stream; for a 200 resolves once the stream says it is connected. */
async function open(eventId: string, timeoutMs: number) {
  const started = Date.now();
  try {
    const res = await fetch(`${api.url}/v1/events/${eventId}/stream`, { signal: AbortSignal.timeout(timeoutMs) });
    if (res.status !== 200) {
      const body = (await res.json()) as { error: { code: string; details?: unknown } };
      return { status: res.status, error: body.error, ms: Date.now() - started, reader: null };
    }
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(': connected')) text += new TextDecoder().decode((await reader.read()).value);
    return { status: 200, error: null, ms: Date.now() - started, reader };
  } catch (err) {
    return { status: 0, error: { code: (err as Error).name }, ms: Date.now() - started, reader: null };
  }
}

/** Holds a seat and waits (up to 10 s) for the reader to hear it. */
async function hearsHold(reader: ReadableStreamDefaultReader<Uint8Array>, eventId: string, seatId: string): Promise<boolean> {
  const hold = await api.call('POST', `/v1/events/${eventId}/holds`, { token: api.token('customer'), body: { seatIds: [seatId] } });
  expect(hold.status).toBe(201);
  let text = '';
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((r) => (timer = setTimeout(() => r(null), 10_000)));
  try {
    while (!text.includes(`"seatId":"${seatId}","status":"held"`)) {
      const chunk = await Promise.race([reader.read(), timeout]);
      if (!chunk || chunk.done) return false;
      text += new TextDecoder().decode(chunk.value);
    }
    return true;
  } finally {
    clearTimeout(timer);
  }
}

async function waitForRedis(): Promise<void> {
  await waitFor('/readyz to answer 200', async () => (await api.call('GET', '/readyz')).status === 200, { timeoutMs: 20_000, intervalMs: 100 });
  expect((await api.call('GET', '/readyz')).status).toBe(200);
}

test('when Redis is down or frozen, then the stream of a seated event answers 503 SERVICE_UNAVAILABLE at once instead of hanging', async () => {
  // Seats only: reading the event needs PostgreSQL alone, so only the subscription needs Redis.
  const { event } = await createTestEvent(api, { seats: seatGrid(['R'], 1, 2) });
  try {
    await redis.kill();
    const down = await open(event.id, 30_000);
    await redis.start();
    await waitForRedis();
    redis.pause();
    const frozen = await open(event.id, 30_000);
    redis.resume();
    recordMeasurements('stream-redis-away', { targetMs: 2000, down: { status: down.status, ms: down.ms }, frozen: { status: frozen.status, ms: frozen.ms } });
    for (const r of [down, frozen]) {
      expect(r.status).toBe(503);
      expect(r.error).toEqual(expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', details: { dependency: 'Redis' } }));
      expect(r.ms).toBeLessThan(BOUND_MS);
    }
    await expectInvariants(api.rt.db, event.id);
  } finally {
    redis.resume();
    await redis.start();
    await dropTestEvent(api, event.id);
  }
}, 120_000);

test('when a subscription failed while Redis was away, then once it is back a new reader of that event hears live changes', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['R'], 1, 3) });
  try {
    // Down: the first reader is refused (however long that takes).
    await redis.kill();
    const refused = await open(event.id, 40_000);
    expect(refused.status).toBe(503);
    await redis.start();
    await waitForRedis();
    const first = await open(event.id, 10_000);
    expect(first.status).toBe(200);
    expect(await hearsHold(first.reader!, event.id, seats[0]!.id)).toBe(true);
    await first.reader!.cancel();

    // Frozen: the subscription is sent and never confirmed; it is given up, and taken again later.
    await waitFor('the last reader\'s unsubscribe to reach Redis', async () => {
      const [, subscribers] = await masters(api.rt.redis)[0]!.pubsub('NUMSUB', eventKeys(event.id).channel);
      return Number(subscribers) === 0;
    });
    redis.pause();
    const timedOut = await open(event.id, 40_000);
    redis.resume();
    expect(timedOut.status).toBe(503);
    const second = await open(event.id, 10_000);
    expect(second.status).toBe(200);
    expect(await hearsHold(second.reader!, event.id, seats[1]!.id)).toBe(true);
    await second.reader!.cancel();
    await api.rt.ctx.persister.flush([event.id]);
    await expectInvariants(api.rt.db, event.id);
  } finally {
    redis.resume();
    await redis.start();
    await dropTestEvent(api, event.id);
  }
}, 180_000);

test('when Redis restarts under an open stream, then the stream ends (its reader opens it again and re-reads), and the new one hears live changes', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['R'], 1, 2) });
  try {
    const reader = (await open(event.id, 10_000)).reader!;
    // Changes published while the subscriber reconnects are never heard: the stream must not stay open as if nothing was missed.
    await redis.kill();
    await redis.start();
    let ended = false;
    const deadline = Date.now() + 15_000;
    while (!ended && Date.now() < deadline) {
      const chunk = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), 1000))]);
      if (chunk?.done) ended = true;
    }
    expect(ended).toBe(true);
    await waitForRedis();
    const again = await waitFor('a new stream to open', async () => {
      const r = await open(event.id, 10_000);
      return r.status === 200 && r;
    }, { timeoutMs: 20_000, intervalMs: 200 });
    expect(await hearsHold(again.reader!, event.id, seats[0]!.id)).toBe(true);
    await again.reader!.cancel();
    await api.rt.ctx.persister.flush([event.id]);
  } finally {
    await redis.start();
    await dropTestEvent(api, event.id);
  }
}, 120_000);
