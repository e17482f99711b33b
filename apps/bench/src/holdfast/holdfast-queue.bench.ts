/**
 * The `queue` section (issue 29): the waiting room under a crowd.
 *
 * 1. Joins: `buyers` customers join one event's waiting room (paused, so they all
 *    wait) through the real API, `concurrency` requests in flight: joins per second
 *    and p99, beside `redis-benchmark` running a `ZADD` (the line's one Redis write)
 *    with as many requests and clients in the same run; Redis bytes per waiting buyer
 *    (MEMORY USAGE of the room's keys, and used_memory's growth).
 * 2. A flash sale of `seats` (general admission, `holdTtlSeconds` holds) to that
 *    crowd through the room, resumed at `admitPerMinute`: nobody asks the room
 *    anything while it admits (the API's tick moves it on); a driver follows the
 *    admitted count on the event stream, as a page does, and only the buyers it
 *    reached ask `queue/me`, hold with their pass and pay (4 of 5,
 *    the rest let the hold lapse, giving the seat back and admitting the next).
 *    Against the same sale without a room: the same number of buyers at once, each
 *    trying once, and once more ("refresh") after the first holds lapsed.
 *    Reported: admitted per minute against the set rate, hold p99, seats sold, holds
 *    that lapsed unpaid, how long the sale took to sell out (null: it did not); the
 *    `queue/me` requests the API served and the tick's script calls a second during
 *    the sale (from its /metrics), which do not grow with the crowd.
 */
import { LatencyHistogram, round3 } from '../latency.histogram';
import { runHttpLoad } from '../http-load.generator';
import { ConnectionPool, type ConnectionResponse } from '../http-connection.client';
import { runRedisBenchmark, type RedisBenchmarkResult } from '../baselines/redis-benchmark.runner';
import type { ChildServer } from '../baselines/child-server.launcher';
import { usedMemory } from '../bench-redis.service';
import { markdownTable, ratio, formatRatio } from '../report/markdown-table.format';
import type { HoldfastFixture } from './holdfast.fixture';

export interface QueueOptions {
  /** Buyers who join the room (and wait in it during the sale with the room); the sale without it has as many. */
  buyers: number;
  /** Requests in flight: of the joins, of redis-benchmark, and of the crowd without a room. */
  concurrency: number;
  seats: number;
  admitPerMinute: number;
  holdTtlSeconds: number;
  /** Of every 5 buyers who hold, how many pay (the others let the hold lapse). */
  payPer5: number;
  /** The sale through the room stops after this even if not sold out. */
  maxSaleMs: number;
}

export interface SaleRun {
  room: boolean;
  buyers: number;
  holdRequests: number;
  holdStatusCounts: Record<string, number>;
  holdP50Ms: number;
  holdP99Ms: number;
  sold: number;
  /** Holds taken and not paid (left to lapse: their seats came back after holdTtlSeconds). */
  lapsedUnpaid: number;
  /** From the sale's start to the last seat paid; null: not sold out. */
  soldOutSec: number | null;
  durationSec: number;
  /** With the room: places admitted per minute while buyers waited (the driver's samples), and ÷ the set rate. */
  admittedPerMinute: number | null;
  admittedVsSetRate: number | null;
  /** With the room: places admitted in all, and still waiting at the end. */
  admitted: number | null;
  waitingAtEnd: number | null;
  /** With the room: `queue/me` requests served during the sale (the buyers reached), and a second. */
  meRequests: number | null;
  meRequestsPerSec: number | null;
  /** With the room: the admission tick's script calls a second during the sale (holdfast_queue_ticks_total). */
  tickCallsPerSec: number | null;
}

export interface QueueReport {
  buyers: number;
  concurrency: number;
  joins: { ok: number; failed: number; statusCounts: Record<string, number>; okPerSec: number; p50Ms: number; p99Ms: number };
  redisBenchmarkZadd: RedisBenchmarkResult;
  joinVsZaddThroughput: number | null;
  joinVsZaddP99: number | null;
  memory: { queueKeysBytes: number; bytesPerWaitingBuyer: number; usedMemoryDeltaBytes: number; usedMemoryPerBuyer: number };
  sale: { seats: number; admitPerMinute: number; holdTtlSeconds: number; payPer5: number; withRoom: SaleRun; withoutRoom: SaleRun };
  note: string;
}

const json = (r: ConnectionResponse) => JSON.parse(r.body.toString('utf8') || 'null');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const tally = (t: Record<string, number>, key: number | string) => { t[key] = (t[key] ?? 0) + 1; };

async function createSale(api: ChildServer, fixture: HoldfastFixture, options: QueueOptions, name: string, room: boolean) {
  const res = await fetch(`${api.baseUrl}/v1/admin/events`, {
    method: 'POST',
    headers: { ...bearer(fixture.adminToken()), 'content-type': 'application/json' },
    body: JSON.stringify({
      name, startsAt: new Date(Date.UTC(new Date().getUTCFullYear() + 1, 0, 1, 19)).toISOString(),
      holdTtlSeconds: options.holdTtlSeconds, maxTicketsPerCustomer: 10,
      ticketTypes: [{ name: 'General Admission', priceCents: 5000, capacity: options.seats }],
      waitingRoom: room ? { admitPerMinute: options.admitPerMinute, maxActive: 1_000_000, passSeconds: 60, preQueueSeconds: 0, challengeBits: 0 } : null,
    }),
  });
  const body = (await res.json()) as { event?: { id: string; ticketTypes: { id: string }[] } };
  if (res.status !== 201 || !body.event) throw new Error(`POST /v1/admin/events answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  fixture.adopt(body.event.id);
  return { eventId: body.event.id, ticketTypeId: body.event.ticketTypes[0]!.id };
}

async function adminRoom(api: ChildServer, fixture: HoldfastFixture, eventId: string, change?: Record<string, unknown>) {
  const res = await fetch(`${api.baseUrl}/v1/admin/events/${eventId}/queue`, {
    method: change ? 'PATCH' : 'GET',
    headers: { ...bearer(fixture.adminToken()), ...(change ? { 'content-type': 'application/json' } : {}) },
    body: change ? JSON.stringify(change) : undefined,
  });
  if (res.status !== 200) throw new Error(`${change ? 'PATCH' : 'GET'} the room answered ${res.status}`);
  return (await res.json()) as { waiting: number; admitted: number; active: number };
}

/** A counter's value in the API's /metrics (0 when absent). */
async function metricValue(api: ChildServer, name: string): Promise<number> {
  const text = await (await fetch(`${api.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

/**
 * The event stream's `queue` messages, as a page hears them: calls `onQueue` with each
 * {admitted, waiting}; the answer stops it.
 */
async function followRoom(api: ChildServer, eventId: string, onQueue: (m: { admitted: number; waiting: number }) => void): Promise<() => void> {
  const stop = new AbortController();
  const res = await fetch(`${api.baseUrl}/v1/events/${eventId}/stream`, { signal: stop.signal });
  if (res.status !== 200 || !res.body) throw new Error(`the event stream answered ${res.status}`);
  const reader = res.body.getReader();
  void (async () => {
    let text = '';
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const frame = text.slice(0, end);
        text = text.slice(end + 2);
        const lines = frame.split('\n');
        if (!lines.includes('event: queue')) continue;
        const data = lines.find((l) => l.startsWith('data: '));
        if (data) onQueue(JSON.parse(data.slice(6)) as { admitted: number; waiting: number });
      }
    }
  })().catch(() => undefined);
  return () => stop.abort();
}

/** One buyer's hold then payment (or not): shared by both sales. */
class Checkout {
  readonly holds = new LatencyHistogram();
  readonly statusCounts: Record<string, number> = {};
  holdRequests = 0;
  sold = 0;
  lapsedUnpaid = 0;
  soldOutAtMs: number | null = null;

  constructor(private readonly pool: ConnectionPool, private readonly fixture: HoldfastFixture, private readonly sale: { eventId: string; ticketTypeId: string },
    private readonly seats: number, private readonly payPer5: number, readonly startMs: number) {}

  /** Holds one ticket; pays when `index % 5 < payPer5`. Answers the hold's status. */
  async buy(customer: string, token: string, index: number, pass?: string): Promise<number> {
    const t0 = performance.now();
    const res = await this.pool.send({
      method: 'POST', path: `/v1/events/${this.sale.eventId}/holds`,
      headers: { ...bearer(token), ...(pass ? { 'holdfast-queue-pass': pass } : {}) },
      body: JSON.stringify({ ticketTypeId: this.sale.ticketTypeId, quantity: 1 }),
    }).catch(() => ({ status: 0, body: Buffer.alloc(0) }));
    this.holds.record(performance.now() - t0);
    this.holdRequests += 1;
    tally(this.statusCounts, res.status);
    if (res.status !== 201) return res.status;
    if (index % 5 >= this.payPer5) {
      this.lapsedUnpaid += 1;
      return res.status;
    }
    const holdId = (json(res) as { hold: { id: string } }).hold.id;
    const paid = await this.pool.send({
      method: 'POST', path: `/v1/holds/${holdId}/confirm`, headers: bearer(this.fixture.serviceToken()),
      body: JSON.stringify({ paymentReference: `bench-${customer}` }),
    }).catch(() => ({ status: 0, body: Buffer.alloc(0) }));
    if (paid.status === 200 || paid.status === 201) {
      this.sold += 1;
      if (this.sold >= this.seats && this.soldOutAtMs === null) this.soldOutAtMs = Date.now();
    }
    return res.status;
  }

  run(extra: Partial<SaleRun> & { room: boolean; buyers: number; endMs: number }): SaleRun {
    const s = this.holds.summary();
    return {
      room: extra.room, buyers: extra.buyers, holdRequests: this.holdRequests, holdStatusCounts: this.statusCounts,
      holdP50Ms: s.p50Ms, holdP99Ms: s.p99Ms, sold: this.sold, lapsedUnpaid: this.lapsedUnpaid,
      soldOutSec: this.soldOutAtMs === null ? null : round3((this.soldOutAtMs - this.startMs) / 1000),
      durationSec: round3((extra.endMs - this.startMs) / 1000),
      admittedPerMinute: extra.admittedPerMinute ?? null, admittedVsSetRate: extra.admittedVsSetRate ?? null,
      admitted: extra.admitted ?? null, waitingAtEnd: extra.waitingAtEnd ?? null,
      meRequests: extra.meRequests ?? null, meRequestsPerSec: extra.meRequestsPerSec ?? null, tickCallsPerSec: extra.tickCallsPerSec ?? null,
    };
  }
}

export async function queueSection(
  fixture: HoldfastFixture, api: ChildServer, benchRedisUrl: string, options: QueueOptions, log: (line: string) => void,
): Promise<QueueReport> {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const n = options.buyers;
  log(`queue: signing ${n} buyers' tokens`);
  const customers = Array.from({ length: n }, (_, i) => `qb-${run}-${i}`);
  const tokens = customers.map((c) => fixture.customerToken(c));

  // 1. Joins into a paused room: everyone waits.
  const sale = await createSale(api, fixture, options, 'Queue bench: through the room', true);
  await adminRoom(api, fixture, sale.eventId, { paused: true });
  const memBefore = await usedMemory(fixture.redis);
  log(`queue: ${n} buyers join (${options.concurrency} in flight)`);
  const positions = new Array<number>(n).fill(0);
  const joins = await runHttpLoad({
    baseUrl: api.baseUrl, concurrency: options.concurrency, maxRequests: n, maxDurationMs: 600_000,
    makeRequest: (i) => ({ method: 'POST', path: `/v1/events/${sale.eventId}/queue`, headers: bearer(tokens[i]!), body: '{}' }),
    onResponse: (i, status, body) => {
      if (status === 200) positions[i] = (JSON.parse(body.toString('utf8')) as { queue: { position: number } }).queue.position;
    },
  });
  const memAfter = await usedMemory(fixture.redis);
  let queueKeysBytes = 0;
  for (const key of ['q:cfg', 'q:pre', 'q:line', 'q:active', 'q:pass', 'q:at']) {
    queueKeysBytes += Number(await fixture.redis.call('MEMORY', 'USAGE', `{ev:${sale.eventId}}:${key}`, 'SAMPLES', '0')) || 0;
  }
  log(`queue: redis-benchmark ZADD, ${n} requests, ${options.concurrency} clients`);
  const zadd = await runRedisBenchmark({
    redisUrl: benchRedisUrl, requests: n, concurrency: options.concurrency,
    command: ['ZADD', 'bench:rb:line', '__rand_int__', 'customer-__rand_int__'],
  });

  // 2a. The sale through the room: resumed, the driver follows the admitted count.
  log(`queue: the sale of ${options.seats} through the room at ${options.admitPerMinute} a minute (${n} waiting)`);
  const byPosition = customers.map((c, i) => ({ c, i, pos: positions[i]! })).filter((b) => b.pos > 0).sort((a, b) => a.pos - b.pos);
  const pool = new ConnectionPool(api.baseUrl, options.concurrency);
  const samples: { t: number; admitted: number; waiting: number }[] = [];
  let heard = { admitted: 0, waiting: n };
  const unfollow = await followRoom(api, sale.eventId, (m) => {
    heard = m;
    samples.push({ t: Date.now(), admitted: m.admitted, waiting: m.waiting });
  });
  let meRequests = 0;
  let withRoom: SaleRun;
  try {
    const start = Date.now();
    const checkout = new Checkout(pool, fixture, sale, options.seats, options.payPer5, start);
    const ticksBefore = await metricValue(api, 'holdfast_queue_ticks_total');
    await adminRoom(api, fixture, sale.eventId, { paused: false });
    const inFlight = new Set<Promise<unknown>>();
    let next = 0;
    const retry: typeof byPosition = [];
    const buyer = (b: (typeof byPosition)[number]) => {
      const p = (async () => {
        meRequests += 1;
        const me = await pool.send({ method: 'GET', path: `/v1/events/${sale.eventId}/queue/me`, headers: bearer(tokens[b.i]!) });
        const q = (json(me) as { queue?: { state: string; pass?: string } }).queue;
        if (q?.state !== 'admitted' || !q.pass) {
          if (q?.state === 'waiting') retry.push(b); // the driver was early: asked again later
          return;
        }
        await checkout.buy(b.c, tokens[b.i]!, b.pos, q.pass);
      })().catch(() => undefined);
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    };
    // Nothing asks the room while it admits: the driver only listens, every 250 ms looking at what it heard.
    while (Date.now() - start < options.maxSaleMs && checkout.soldOutAtMs === null) {
      for (const b of retry.splice(0)) buyer(b);
      while (next < byPosition.length && byPosition[next]!.pos <= heard.admitted) buyer(byPosition[next++]!);
      await sleep(250);
    }
    await Promise.all([...inFlight]);
    const end = Date.now();
    const tickCalls = (await metricValue(api, 'holdfast_queue_ticks_total')) - ticksBefore;
    const saleSec = (end - start) / 1000;
    const last = await adminRoom(api, fixture, sale.eventId);
    // The rate while places waited: first and last samples with buyers still waiting.
    const waitingSamples = samples.filter((s) => s.waiting > 0);
    const first = waitingSamples[0];
    const lastS = waitingSamples[waitingSamples.length - 1];
    const perMinute = first && lastS && lastS.t > first.t ? ((lastS.admitted - first.admitted) * 60_000) / (lastS.t - first.t) : null;
    withRoom = checkout.run({
      room: true, buyers: n, endMs: checkout.soldOutAtMs ?? end,
      admittedPerMinute: perMinute === null ? null : round3(perMinute),
      admittedVsSetRate: perMinute === null ? null : round3(perMinute / options.admitPerMinute),
      admitted: last.admitted, waitingAtEnd: last.waiting,
      meRequests, meRequestsPerSec: round3(meRequests / saleSec), tickCallsPerSec: round3(tickCalls / saleSec),
    });
  } finally {
    unfollow();
    pool.close();
  }

  // 2b. The same sale without the room: the crowd at once, then a refresh once the first holds lapsed.
  log(`queue: the same sale without a room (${n} buyers at once)`);
  const bare = await createSale(api, fixture, options, 'Queue bench: no room', false);
  const pool2 = new ConnectionPool(api.baseUrl, options.concurrency);
  let withoutRoom: SaleRun;
  try {
    const start = Date.now();
    const checkout = new Checkout(pool2, fixture, bare, options.seats, options.payPer5, start);
    const refused: number[] = [];
    const wave = async (who: number[]) => {
      let k = 0;
      await Promise.all(Array.from({ length: options.concurrency }, async () => {
        while (k < who.length) {
          const i = who[k++]!;
          const status = await checkout.buy(`nr-${customers[i]}`, tokens[i]!, i);
          if (status !== 201) refused.push(i);
        }
      }));
    };
    await wave(customers.map((_, i) => i));
    if (checkout.soldOutAtMs === null) {
      await sleep(options.holdTtlSeconds * 1000 + 1000);
      await wave(refused.splice(0));
    }
    withoutRoom = checkout.run({ room: false, buyers: n, endMs: checkout.soldOutAtMs ?? Date.now() });
  } finally {
    pool2.close();
  }

  return {
    buyers: n,
    concurrency: options.concurrency,
    joins: {
      ok: joins.ok, failed: joins.failed, statusCounts: joins.statusCounts, okPerSec: round3(joins.okPerSec),
      p50Ms: joins.latency.p50Ms, p99Ms: joins.latency.p99Ms,
    },
    redisBenchmarkZadd: zadd,
    joinVsZaddThroughput: ratio(joins.okPerSec, zadd.requestsPerSec),
    joinVsZaddP99: ratio(joins.latency.p99Ms, zadd.p99Ms),
    memory: {
      queueKeysBytes, bytesPerWaitingBuyer: Math.round(queueKeysBytes / Math.max(1, joins.ok)),
      usedMemoryDeltaBytes: memAfter - memBefore, usedMemoryPerBuyer: Math.round((memAfter - memBefore) / Math.max(1, joins.ok)),
    },
    sale: { seats: options.seats, admitPerMinute: options.admitPerMinute, holdTtlSeconds: options.holdTtlSeconds, payPer5: options.payPer5, withRoom, withoutRoom },
    note:
      'Joins: one customer each, through HTTP into a paused room (all wait). Bytes per waiting buyer: MEMORY USAGE of the room\'s keys ÷ joins; ' +
      'used_memory is the whole server\'s (shared machine). The sales: general admission tickets, 4 of 5 holders pay at once ' +
      '(service confirm), the rest let the hold lapse. Through the room nobody asks the room anything while it admits (the API\'s tick, ' +
      'about once a second per room, moves it on); a driver follows the admitted count on the event stream, as a page does, and only the ' +
      'buyers it reached ask queue/me and hold with their pass. Without it every buyer tries once at once and once more after the first holds lapsed.',
  };
}

export function renderQueueSection(report: QueueReport | null | undefined): string[] {
  if (!report) return [];
  const r = report;
  const sale = (s: SaleRun) => [
    s.room ? 'through the room' : 'without a room', s.holdRequests, s.holdP50Ms, s.holdP99Ms, s.sold, s.lapsedUnpaid,
    s.soldOutSec === null ? `not sold out (${s.durationSec} s)` : s.soldOutSec,
    s.admittedPerMinute, s.admittedVsSetRate === null ? null : `${((s.admittedVsSetRate - 1) * 100).toFixed(1)} %`,
  ];
  return [
    `## Waiting room: ${r.buyers.toLocaleString('en-US')} buyers join, then a flash sale of ${r.sale.seats} seats`,
    '',
    markdownTable(['path', 'requests', 'ok/s', 'p50 ms', 'p99 ms', 'failed'], [
      ['join (POST /v1/events/{id}/queue, HTTP)', r.buyers, r.joins.okPerSec, r.joins.p50Ms, r.joins.p99Ms, r.joins.failed],
      [`redis-benchmark ${r.redisBenchmarkZadd.command}`, r.redisBenchmarkZadd.requests, r.redisBenchmarkZadd.requestsPerSec, r.redisBenchmarkZadd.p50Ms, r.redisBenchmarkZadd.p99Ms, 0],
    ]),
    '',
    `Joins vs ZADD: throughput ${formatRatio(r.joinVsZaddThroughput)}, p99 ${formatRatio(r.joinVsZaddP99)} (${r.concurrency} in flight each). ` +
      `Redis per waiting buyer: ${r.memory.bytesPerWaitingBuyer} bytes (the room's keys, ${r.memory.queueKeysBytes.toLocaleString('en-US')} bytes); ` +
      `used_memory grew ${r.memory.usedMemoryPerBuyer} bytes per buyer.`,
    '',
    markdownTable(['sale', 'hold requests', 'hold p50 ms', 'hold p99 ms', 'sold', 'lapsed unpaid', 'sold out after s', 'admitted/min', 'vs set rate'],
      [sale(r.sale.withRoom), sale(r.sale.withoutRoom)]),
    '',
    `Set rate ${r.sale.admitPerMinute}/min; holds last ${r.sale.holdTtlSeconds} s; ${r.sale.payPer5} of 5 holders pay. ${r.note}`,
    '',
    `While ${r.buyers.toLocaleString('en-US')} waited, the API served ${r.sale.withRoom.meRequests ?? '?'} \`queue/me\` requests during the sale ` +
      `(${r.sale.withRoom.meRequestsPerSec ?? '?'} a second: the buyers admitted, not the crowd) and the admission tick made ` +
      `${r.sale.withRoom.tickCallsPerSec ?? '?'} script calls a second (one a second per room and API process, whatever the crowd).`,
    '',
  ];
}
