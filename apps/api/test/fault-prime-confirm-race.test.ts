// Issue 28, point 13: a confirm whose end in Redis runs while the event is not
// primed (Redis lost its data) is not lost when a priming that read PostgreSQL
// before the confirm committed writes its state after: the seat ends up sold in
// Redis, never held by the confirmed hold and then handed out again.
import { createHash } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';
import { eventKeys, scriptSource } from '@holdfast/hold-store';
import {
  confirmVia, createTestEvent, dropTestEvent, expectInvariants, holdSeats, seatGrid, sleepUntil, startApi, useTestApi, waitFor, type TestApi,
} from '@holdfast/test-kit';

// The confirm below waits on a row lock on purpose: a statement budget above the 1.5 s default.
const env = { DATABASE_QUERY_TIMEOUT_MS: '30000' };
const { api, redis } = useTestApi(env, { privateRedis: true });

/**
 * A TCP proxy in front of a redis-server that holds back what a client sends
 * from the moment it sends a given script (by its SHA or its text) until
 * `open()`: that script, and whatever the client sends after it, reach Redis
 * only then, in order. Other clients are not behind it.
 */
class ScriptGate {
  private held = false;
  private readonly waiting: (() => void)[] = [];
  private caughtResolve!: () => void;
  readonly caught = new Promise<void>((r) => { this.caughtResolve = r; });
  private constructor(private readonly server: net.Server, readonly port: number) {}

  static async start(targetPort: number, markers: string[]): Promise<ScriptGate> {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const gate = new ScriptGate(server, (server.address() as net.AddressInfo).port);
    server.on('connection', (client) => {
      const upstream = net.connect(targetPort, '127.0.0.1');
      upstream.on('data', (d) => client.write(d));
      client.on('data', (d: Buffer) => {
        const text = d.toString('latin1');
        if (!gate.held && gate.armed && markers.some((m) => text.includes(m))) {
          gate.held = true;
          gate.caughtResolve();
        }
        if (gate.held) gate.waiting.push(() => upstream.write(d));
        else upstream.write(d);
      });
      const close = () => { client.destroy(); upstream.destroy(); };
      client.on('close', close);
      upstream.on('close', close);
      client.on('error', close);
      upstream.on('error', close);
    });
    return gate;
  }

  armed = false;

  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  open(): void {
    this.held = false;
    this.armed = false;
    for (const send of this.waiting.splice(0)) send();
  }

  async close(): Promise<void> {
    this.open();
    await new Promise((r) => this.server.close(r));
  }
}

test('when a confirm ends its hold in Redis while the event is not primed, between a priming\'s read of PostgreSQL and its write, then the seat ends up sold in Redis, not held and handed out again', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 15, seats: seatGrid(['M'], 1, 2) });
  const seat = seats[0]!.id;
  const k = eventKeys(event.id);
  const primeScript = scriptSource('primeEvent');
  const gate = await ScriptGate.start(redis.port, [createHash('sha1').update(primeScript).digest('hex'), primeScript.slice(0, 200)]);
  let other: TestApi | null = null;
  const locker = new pg.Client({ connectionString: api.config.databaseUrl });
  await locker.connect();
  try {
    // A second API process whose Redis traffic passes the gate: its priming will read PostgreSQL, then wait.
    other = await startApi({ ...env, REDIS_URL: gate.url });
    const hold = await holdSeats(api, event.id, 'p13-buyer-a', [seat]);
    await waitFor('the hold in PostgreSQL', async () => (await api.rt.db.hold.count({ where: { id: hold.id } })) === 1, { timeoutMs: 5000, intervalMs: 50 });

    // The confirm claims its hold in Redis, then waits on the hold's row, locked here.
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM holds WHERE id = $1 FOR UPDATE', [hold.id]);
    const confirming = confirmVia(api, hold.id, 'pay-p13');
    await waitFor('the confirm\'s claim in Redis', async () => (await api.rt.redis.exists(k.claim(hold.id))) === 1, { timeoutMs: 10_000, intervalMs: 20 });

    // Redis loses its data; the other process primes the event: it reads PostgreSQL (the hold still ACTIVE)...
    await api.rt.redis.flushall();
    gate.armed = true;
    const otherHold = other.call('POST', `/v1/events/${event.id}/holds`, {
      token: other.token('customer', 'p13-buyer-b'), body: { seatIds: [seats[1]!.id] },
    });
    await gate.caught;
    // ...and before its write reaches Redis, the confirm commits and ends its hold in Redis, not primed.
    await locker.query('COMMIT');
    expect((await confirming).status).toBe(201);
    expect(await api.rt.redis.exists(k.ready)).toBe(0);
    gate.open();
    expect((await otherHold).status).toBe(201);

    // The seat is sold in Redis as in PostgreSQL: no lease of the confirmed hold, in the sold set.
    expect(await api.rt.redis.sismember(k.sold, seat)).toBe(1);
    expect(await api.rt.redis.get(k.seat(seat))).toBeNull();
    // Past the hold's time it is still not handed out again.
    await sleepUntil(hold.expiresAt, 200);
    const late = await api.call('POST', `/v1/events/${event.id}/holds`, {
      token: api.token('customer', 'p13-buyer-c'), body: { seatIds: [seat] },
    });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('SEATS_UNAVAILABLE');
    await expectInvariants(api.rt.db, event.id);
  } finally {
    await locker.end().catch(() => undefined);
    await other?.close();
    await gate.close();
    await dropTestEvent(api, event.id);
  }
});
