import { eventKeyPattern } from '@holdfast/hold-store';
import type { BenchPlan } from '../bench-plan.config';
import type { ChildServer } from '../baselines/child-server.launcher';
import { usedMemory } from '../bench-redis.service';
import { runHttpLoad, type HttpLoadResult, type LoadRequest } from '../http-load.generator';
import { elapsedMs, round3 } from '../latency.histogram';
import type { BenchEvent, HoldfastFixture } from './holdfast.fixture';

/** Seats a customer holds at most, well under the events' per-customer limit. */
const SEATS_PER_CUSTOMER = 50;

/**
 * Hands out seats in order, so that every hold request of a run asks for seats
 * nobody asked for before: the measured path is the successful hold, not the
 * 409. Over several events (of one size) it takes their seats round-robin, or,
 * with `order` 'event by event', all of one event's seats before the next
 * event's (so that a load holds on one event at a time, as a load on one large
 * event does); with `seatsPerHold` > 1 each request holds that many seats of
 * one event.
 */
export class SeatCursor {
  private next = 0;
  private readonly tokens = new Map<number, string>();
  private readonly holds: Array<{ eventId: string; seatIds: string[] }> = [];
  private readonly holdsPerCustomer: number;
  readonly events: BenchEvent[];

  constructor(
    events: BenchEvent | BenchEvent[],
    private readonly fixture: HoldfastFixture,
    private readonly customerPrefix: string,
    seatsPerHold = 1,
    order: 'round-robin' | 'event by event' = 'round-robin',
  ) {
    this.events = Array.isArray(events) ? events : [events];
    this.holdsPerCustomer = Math.max(1, Math.floor(SEATS_PER_CUSTOMER / seatsPerHold));
    if (order === 'event by event') {
      for (const event of this.events) {
        for (let position = 0; position + seatsPerHold <= event.seatIds.length; position += seatsPerHold) {
          this.holds.push({ eventId: event.eventId, seatIds: event.seatIds.slice(position, position + seatsPerHold) });
        }
      }
      return;
    }
    const longest = Math.max(0, ...this.events.map((event) => event.seatIds.length));
    for (let position = 0; position + seatsPerHold <= longest; position += seatsPerHold) {
      for (const event of this.events) {
        const seatIds = event.seatIds.slice(position, position + seatsPerHold);
        if (seatIds.length === seatsPerHold) this.holds.push({ eventId: event.eventId, seatIds });
      }
    }
  }

  /**
   * Reserves one hold request on each event, for the first hold of each (it
   * loads the event's seat catalog in the API) to be taken before a clock.
   * With 'event by event' order these are each event's first seat; the rest
   * keep their order.
   */
  takeFirstOfEach(): Array<() => LoadRequest> {
    return this.events.map((event) => {
      const position = this.holds.findIndex((hold, i) => i >= this.next && hold.eventId === event.eventId);
      if (position < 0) throw new Error(`no hold left on event ${event.eventId}`);
      const [hold] = this.holds.splice(position, 1);
      this.holds.splice(this.next, 0, hold!);
      const take = this.take(1);
      return () => take(0);
    });
  }

  /** Seats of each event (the events of one cursor have one size). */
  get seatsPerEvent(): number {
    return this.events[0]?.seatIds.length ?? 0;
  }

  /** Hold requests left. */
  get remaining(): number {
    return this.holds.length - this.next;
  }

  /** Reserves `count` hold requests; returns a request builder for load-generator indices 0..count-1. */
  take(count: number): (index: number) => LoadRequest {
    if (count > this.remaining) throw new Error(`${this.remaining} holds left, ${count} asked`);
    const start = this.next;
    this.next += count;
    const customerOf = (position: number) => Math.floor(position / this.holdsPerCustomer);
    // Sign every token up front: the load generator should not spend its time on HMACs.
    for (let customer = customerOf(start); customer <= customerOf(start + count - 1); customer += 1) {
      if (!this.tokens.has(customer)) this.tokens.set(customer, this.fixture.customerToken(`${this.customerPrefix}-${customer}`));
    }
    return (index) => {
      const position = start + index;
      const hold = this.holds[position];
      if (hold === undefined || index >= count) throw new Error(`hold index ${index} outside the reserved range`);
      return {
        method: 'POST',
        path: `/v1/events/${hold.eventId}/holds`,
        headers: { authorization: `Bearer ${this.tokens.get(customerOf(position))}` },
        body: JSON.stringify({ seatIds: hold.seatIds }),
      };
    };
  }
}

interface HoldLoadOptions {
  concurrency: number;
  requests: number;
  warmupRequests: number;
  maxDurationMs: number;
}

/** Holds distinct seats through `POST /v1/events/{id}/holds` under a closed-loop load. */
export function loadHolds(api: ChildServer, cursor: SeatCursor, options: HoldLoadOptions): Promise<HttpLoadResult> {
  const makeRequest = cursor.take(options.warmupRequests + options.requests);
  return runHttpLoad({
    baseUrl: api.baseUrl,
    concurrency: options.concurrency,
    maxRequests: options.requests,
    warmupRequests: options.warmupRequests,
    maxDurationMs: options.maxDurationMs,
    makeRequest,
  });
}

export interface GrowthRow {
  seats: number;
  /** Events of this size the holds were spread over (more than one when an event has fewer seats than the holds asked). */
  events: number;
  /** Creating the event through the API (`POST /v1/admin/events` with its seats listed, priming included), seconds. */
  createSec: number;
  /** The first hold on the fresh event: loads the seat catalog and primes Redis. */
  firstHoldMs: number;
  /** One load per round; the rounds visit the event sizes in turn. */
  rounds: HttpLoadResult[];
  /** Medians over the rounds. */
  holds: { ok: number; okPerSec: number; p50Ms: number; p99Ms: number };
  seatMap: HttpLoadResult & { bytes: number };
}

/** The plan's `growth` part (the event sizes are passed on their own). */
type GrowthOptions = Omit<BenchPlan['growth'], 'seatCounts' | 'memoryHolds'>;

export interface GrowthEvent {
  /** One or more events of the same size. */
  events: BenchEvent[];
  /** Seconds to create the first of them (through the API). */
  createSec: number;
}

/**
 * Hold latency and seat-map response time for events of different sizes. The
 * rounds visit every size in turn, in alternating order, so the machine's
 * drifting load hits all sizes alike. Returns the seat cursors for later use (memory reading).
 */
export async function measureGrowth(
  api: ChildServer,
  fixture: HoldfastFixture,
  events: GrowthEvent[],
  options: GrowthOptions,
  log: (line: string) => void,
): Promise<{ rows: GrowthRow[]; cursors: SeatCursor[] }> {
  // A size too small for all the holds has several events; its holds take one
  // event's seats after another, so each load holds on one event as the larger
  // sizes' loads do (holds spread over several events cost more a hold: an
  // outbox stream and expiry jobs per event).
  const cursors = events.map((group) => new SeatCursor(group.events, fixture, `growth-${group.events[0]?.seatIds.length ?? 0}`, 1, 'event by event'));
  const firstHoldMs: number[] = [];
  for (const cursor of cursors) {
    // The first hold of each event loads its seat catalog: all before the clock,
    // the first event's timed (the cold first hold).
    for (const [i, makeRequest] of cursor.takeFirstOfEach().entries()) {
      const t0 = process.hrtime.bigint();
      const first = await runHttpLoad({ baseUrl: api.baseUrl, concurrency: 1, maxRequests: 1, maxDurationMs: 60_000, makeRequest });
      if (i === 0) firstHoldMs.push(round3(elapsedMs(t0)));
      if (first.ok !== 1) throw new Error(`first hold failed: ${JSON.stringify(first.statusCounts)}`);
    }
    await loadHolds(api, cursor, { concurrency: options.concurrency, requests: 0, warmupRequests: options.warmupHolds, maxDurationMs: options.maxDurationMs });
  }
  const perRound = Math.floor(options.holds / options.rounds);
  const rounds: HttpLoadResult[][] = cursors.map(() => []);
  for (let round = 1; round <= options.rounds; round += 1) {
    // Odd rounds visit the sizes smallest first, even rounds largest first.
    const visits = [...cursors.entries()];
    if (round % 2 === 0) visits.reverse();
    for (const [index, cursor] of visits) {
      const requests = Math.min(perRound, cursor.remaining);
      const result = await loadHolds(api, cursor, { concurrency: options.concurrency, requests, warmupRequests: 0, maxDurationMs: options.maxDurationMs });
      rounds[index]?.push(result);
      log(`  round ${round}, ${cursor.seatsPerEvent} seats: ${Math.round(result.okPerSec)} holds/s, p50 ${result.okLatency.p50Ms} ms, p99 ${result.okLatency.p99Ms} ms`);
    }
  }
  const rows: GrowthRow[] = [];
  for (const [index, { events: group, createSec }] of events.entries()) {
    const event = group[0];
    if (!event) continue;
    let bytes = 0;
    const seatMap = await runHttpLoad({
      baseUrl: api.baseUrl,
      concurrency: 1,
      maxRequests: options.seatMapRequests,
      warmupRequests: 1,
      maxDurationMs: 60_000,
      makeRequest: () => ({ method: 'GET', path: `/v1/events/${event.eventId}/seats` }),
      onResponse: (_index, status, body) => {
        if (status === 200) bytes = body.length;
      },
    });
    const results = rounds[index] ?? [];
    rows.push({
      seats: event.seatIds.length,
      events: group.length,
      createSec,
      firstHoldMs: firstHoldMs[index] ?? 0,
      rounds: results,
      holds: {
        ok: results.reduce((total, r) => total + r.ok, 0),
        okPerSec: middle(results.map((r) => r.okPerSec)),
        p50Ms: middle(results.map((r) => r.okLatency.p50Ms)),
        p99Ms: middle(results.map((r) => r.okLatency.p99Ms)),
      },
      seatMap: { ...seatMap, bytes },
    });
  }
  return { rows, cursors };
}

function middle(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return round3(sorted.length % 2 === 1 ? (sorted[half] ?? 0) : ((sorted[half - 1] ?? 0) + (sorted[half] ?? 0)) / 2);
}

export interface MemoryResult {
  heldSeats: number;
  usedMemoryBefore: number;
  usedMemoryAfter: number;
  /** Server-wide `used_memory` delta per held seat (other clients' writes are noise here). */
  bytesPerHeldSeat: number;
  /** The event's own keys ({ev:<id>}*), `MEMORY USAGE ... SAMPLES 0` summed, before and after. */
  eventKeyBytesBefore: number;
  eventKeyBytesAfter: number;
  /** Event-scoped delta per held seat: what holdfast's keys cost, whatever else uses the server. */
  eventKeyBytesPerHeldSeat: number;
  keysBefore: number;
  keysAfter: number;
  keysPerHold: number;
}

/**
 * Redis memory per held seat: `used_memory` (INFO memory) before and after
 * holding `holds` more seats (one seat per hold) while nothing else of the
 * bench runs. Server-wide, so other clients' writes show up as noise.
 */
export async function measureMemoryPerHeldSeat(
  api: ChildServer,
  fixture: HoldfastFixture,
  cursor: SeatCursor,
  options: HoldLoadOptions,
): Promise<MemoryResult> {
  await settle();
  const eventKeyBytesBefore = await eventKeyBytes(fixture, cursor.events);
  const usedMemoryBefore = await usedMemory(fixture.redis);
  const keysBefore = await fixture.redis.dbsize();
  const result = await loadHolds(api, cursor, options);
  await settle();
  const usedMemoryAfter = await usedMemory(fixture.redis);
  const keysAfter = await fixture.redis.dbsize();
  const eventKeyBytesAfter = await eventKeyBytes(fixture, cursor.events);
  const heldSeats = result.ok;
  return {
    heldSeats,
    usedMemoryBefore,
    usedMemoryAfter,
    bytesPerHeldSeat: heldSeats > 0 ? Math.round((usedMemoryAfter - usedMemoryBefore) / heldSeats) : 0,
    eventKeyBytesBefore,
    eventKeyBytesAfter,
    eventKeyBytesPerHeldSeat: heldSeats > 0 ? Math.round((eventKeyBytesAfter - eventKeyBytesBefore) / heldSeats) : 0,
    keysBefore,
    keysAfter,
    keysPerHold: heldSeats > 0 ? round3((keysAfter - keysBefore) / heldSeats) : 0,
  };
}

/** The bytes of every key of one event (`MEMORY USAGE key SAMPLES 0`, exact for aggregates). */
async function eventKeyBytes(fixture: HoldfastFixture, events: BenchEvent[]): Promise<number> {
  let total = 0;
  for (const { eventId } of events) total += await keyBytes(fixture, eventKeyPattern(eventId));
  return total;
}

async function keyBytes(fixture: HoldfastFixture, pattern: string): Promise<number> {
  let total = 0;
  let cursor = '0';
  do {
    const [next, keys] = await fixture.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) {
      const pipeline = fixture.redis.pipeline();
      for (const key of keys) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
      for (const [error, bytes] of (await pipeline.exec()) ?? []) if (!error) total += Number(bytes ?? 0);
    }
  } while (cursor !== '0');
  return total;
}

/** Lets the API drain its outbox into PostgreSQL before a memory reading. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1500));
}
