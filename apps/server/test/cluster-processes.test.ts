// `npm start` with API_PROCESSES=2 and WORKER_PROCESSES=2 on a Redis Cluster of
// the test's own (3 masters, 3 replicas): the two API processes share one port
// and sell as one (one winner per seat, GA within capacity, overlapping multi-seat
// buyers never share a seat, a customer's limit holds across both, every hold
// persisted once), /metrics adds both up, a killed API or worker process is started again,
// a worker killed while holds fall due leaves none unexpired, SIGTERM drains all.
import pg from 'pg';
import { DEV_JWT_SECRET } from '@holdfast/config';
import { signToken } from '@holdfast/api';
import { eventKeys } from '@holdfast/hold-store';
import { isolatedDatabaseUrl, cli, keySlot, RedisCluster, seatGrid, ServerProcess, sleep, waitFor } from '@holdfast/test-kit';

const DB = isolatedDatabaseUrl('processes');

let cluster: RedisCluster;
beforeAll(async () => { cluster = await RedisCluster.start(); }, 60_000);
afterAll(async () => { await cluster?.stop(); });

function pidsOf(out: string, msg: string): number[] {
  return out.split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).map((l) => (JSON.parse(l) as { pid: number }).pid);
}

/** waitFor, saying how long it took (for whoever reads a slow run's log). */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const started = Date.now();
  await waitFor(what, check, { timeoutMs, intervalMs: 200 });
  process.stdout.write(`[processes] ${what} after ${Date.now() - started} ms\n`);
}

test('when npm start runs 2 API and 2 worker processes on a cluster, then they sell as one, add up their metrics, restart the dead and every hold still expires', async () => {
  const server = ServerProcess.start({
    REDIS_URL: undefined, REDIS_CLUSTER_NODES: cluster.seeds, API_PROCESSES: '2', WORKER_PROCESSES: '2',
    PORT: '0', WORKER_METRICS_PORT: '0', DEMO_MODE: 'true', LOG_LEVEL: 'info', LOG_FORMAT: 'json', DATABASE_URL: DB,
  }, { detached: true });
  const db = new pg.Client({ connectionString: DB });
  await db.connect();
  try {
    await until('the API processes', () => /checkout page at http:\/\/localhost:(\d+)\//.test(server.output), 90_000);
    const base = `http://127.0.0.1:${/checkout page at http:\/\/localhost:(\d+)\//.exec(server.output)![1]}`;
    await until('two workers', () => pidsOf(server.output, 'worker started').length >= 2, 60_000);
    const apiPids = pidsOf(server.output, 'holdfast API listening');
    expect(new Set(apiPids).size).toBe(2);

    const call = async (method: string, p: string, token: string, body?: unknown) => {
      const res = await fetch(base + p, {
        method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(15_000),
      });
      return { status: res.status, body: (await res.json().catch(() => null)) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    const admin = signToken(DEV_JWT_SECRET, 'admin-1', 'admin');
    const newEvent = async (body: Record<string, unknown>) => {
      const created = await call('POST', '/v1/admin/events', admin, { startsAt: '2027-01-01T19:00:00Z', ...body });
      expect(created.status).toBe(201);
      const seats = (await call('GET', `/v1/events/${created.body.event.id}/seats`, admin)).body.seats as { id: string }[];
      return { event: created.body.event, seats };
    };
    const { event, seats } = await newEvent({
      name: 'Processes', holdTtlSeconds: 4, seats: seatGrid(['A'], 1, 10, 'std', 1000), ticketTypes: [{ name: 'GA', priceCents: 500, capacity: 10 }],
    });
    const hold = (customer: number, body: unknown) => call('POST', `/v1/events/${event.id}/holds`, signToken(DEV_JWT_SECRET, `buyer-${customer}`, 'customer'), body);

    // One seat, 40 buyers over both processes; 30 buyers for 10 GA tickets.
    const one = await Promise.all(Array.from({ length: 40 }, (_, i) => hold(i, { seatIds: [seats[0]!.id] })));
    const ga = await Promise.all(Array.from({ length: 30 }, (_, i) => hold(100 + i, { ticketTypeId: event.ticketTypes[0].id, quantity: 1 })));
    const count = (rs: { status: number }[], s: number) => rs.filter((r) => r.status === s).length;
    expect([count(one, 201), count(one, 409)]).toEqual([1, 39]);
    expect([count(ga, 201), count(ga, 409)]).toEqual([10, 20]);
    const holdIds = [...one, ...ga].filter((r) => r.status === 201).map((r) => r.body.hold.id as string);

    // Every hold persisted once, the event's outbox empty.
    await until('the holds in PostgreSQL', async () =>
      (await db.query('SELECT count(*)::int AS n FROM holds WHERE event_id = $1', [event.id])).rows[0].n === 11, 30_000);
    const outboxMaster = await cluster.masterOfSlot(keySlot(eventKeys(event.id).outbox));
    await until('an empty outbox', async () => (await cli(outboxMaster, 'XLEN', eventKeys(event.id).outbox)) === '0', 15_000);

    // One /metrics for both processes: every hold request counted once.
    const metrics = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(15_000) })).text();
    const requests = [...metrics.matchAll(/^holdfast_hold_requests_total\{[^}]*\} (\d+)/gm)].reduce((t, m) => t + Number(m[1]), 0);
    expect(requests).toBe(70);

    // A worker killed as the holds fall due: the other (and its restarted self) expire every one.
    const workerPids = pidsOf(server.output, 'worker started');
    await sleep(3500);
    process.kill(workerPids[0]!, 'SIGKILL');
    await until('every hold expired', async () => {
      const r = await db.query(`SELECT count(*)::int AS n FROM holds WHERE id = ANY($1) AND status = 'EXPIRED'`, [holdIds]);
      return r.rows[0].n === holdIds.length;
    }, 60_000);
    await until('the killed worker restarted', () => pidsOf(server.output, 'worker started').length >= 3, 60_000);

    // Overlapping multi-seat buyers and a customer's limit, across both processes: same answers as one node.
    const { event: ev2, seats: row } = await newEvent({
      name: 'Processes, overlaps and limits', maxTicketsPerCustomer: 5, seats: seatGrid(['B'], 1, 10, 'std', 1000),
      ticketTypes: [{ name: 'GA', priceCents: 500, capacity: 100 }],
    });
    const hold2 = (customer: string, body: unknown) => call('POST', `/v1/events/${ev2.id}/holds`, signToken(DEV_JWT_SECRET, customer, 'customer'), body);
    const overlaps = await Promise.all(Array.from({ length: 30 }, (_, i) =>
      hold2(`overlap-${i}`, { seatIds: row.slice(i % 8, (i % 8) + 3).map((x) => x.id) })));
    expect(overlaps.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    const won = overlaps.filter((r) => r.status === 201).flatMap((r) => (r.body.hold.items as { seatId: string }[]).map((it) => it.seatId));
    expect(won.length).toBeGreaterThanOrEqual(3);
    expect(new Set(won).size).toBe(won.length); // no seat in two holds
    const limited = await Promise.all(Array.from({ length: 20 }, () => hold2('one-buyer', { ticketTypeId: ev2.ticketTypes[0].id, quantity: 1 })));
    expect([count(limited, 201), count(limited, 422)]).toEqual([5, 15]);
    for (const r of limited.filter((x) => x.status === 422)) expect(r.body.error).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 5, inUse: 5 } });
    await until('the second event\'s holds in PostgreSQL', async () =>
      (await db.query('SELECT count(*)::int AS n FROM holds WHERE event_id = $1', [ev2.id])).rows[0].n === won.length / 3 + 5, 30_000);

    // An API process killed: the primary starts another; the port keeps answering meanwhile.
    process.kill(apiPids[0]!, 'SIGKILL');
    // A request the dead process had taken is lost with it (the client retries); the port keeps answering.
    const answer = async () => {
      for (let attempt = 0; attempt < 3; attempt++) {
        const res = await fetch(`${base}/v1/events/${event.id}`, { signal: AbortSignal.timeout(5000) }).catch(() => null);
        if (res) return res.status;
      }
      return 0;
    };
    for (let i = 0; i < 5; i++) expect(await answer()).toBe(200);
    await until('a new API process', () => new Set(pidsOf(server.output, 'holdfast API listening')).size >= 3, 60_000);

    // SIGTERM to the server's own process (the primary), as a process supervisor sends it; tsx
    // then exits with its code.
    const [primary] = pidsOf(server.output, 'holdfast API processes listening');
    process.kill(primary!, 'SIGTERM');
    expect(await server.exited).toBe(0);
    expect(pidsOf(server.output, 'worker stopped').length).toBeGreaterThanOrEqual(2);
  } catch (err) {
    // What the processes said, for whoever reads the failure.
    process.stderr.write(`\n--- npm start output (last 4000 characters) ---\n${server.output.slice(-4000)}\n`);
    throw err;
  } finally {
    server.signalGroup('SIGKILL');
    await db.end();
  }
}, 240_000);
