import type { ChildServer } from '../src/baselines/child-server.launcher';
import { measureGrowth, SeatCursor, type GrowthEvent } from '../src/holdfast/holdfast-holds.bench';
import { openHoldfastFixture, type BenchEvent, type HoldfastFixture } from '../src/holdfast/holdfast.fixture';

// The fixture and the API child on the test database and Redis of this run (not the bench's own).
process.env.BENCH_API_DATABASE_URL = process.env.DATABASE_URL;
process.env.BENCH_API_REDIS_URL = process.env.REDIS_URL;

let fixture: HoldfastFixture;

beforeAll(async () => {
  fixture = await openHoldfastFixture();
});
afterAll(async () => {
  await fixture?.close();
});

const seatsOf = (cursor: SeatCursor, count: number) => {
  const take = cursor.take(count);
  return Array.from({ length: count }, (_, i) => {
    const request = take(i);
    return `${request.path.split('/')[3]}:${(JSON.parse(request.body!) as { seatIds: string[] }).seatIds.join(',')}`;
  });
};
const event = (eventId: string, seats: number): BenchEvent => ({ eventId, seatIds: Array.from({ length: seats }, (_, i) => `${eventId}-s${i}`), ticketTypeId: null });

describe('the seat cursor over several events of one size', () => {
  it('when its order is round-robin, then its holds take the events\' seats in turn', () => {
    const cursor = new SeatCursor([event('a', 3), event('b', 3)], fixture, 'cursor-rr');
    expect(seatsOf(cursor, 6)).toEqual(['a:a-s0', 'b:b-s0', 'a:a-s1', 'b:b-s1', 'a:a-s2', 'b:b-s2']);
    expect(cursor.remaining).toBe(0);
  });

  it('when its order is event by event, then all of one event\'s seats go before the next event\'s', () => {
    const cursor = new SeatCursor([event('a', 3), event('b', 3)], fixture, 'cursor-ebe', 1, 'event by event');
    expect(seatsOf(cursor, 6)).toEqual(['a:a-s0', 'a:a-s1', 'a:a-s2', 'b:b-s0', 'b:b-s1', 'b:b-s2']);
  });

  it('when the first hold of each event is taken first, then each event gets one, and the rest keep their order with none given twice', () => {
    const cursor = new SeatCursor([event('a', 3), event('b', 3), event('c', 2)], fixture, 'cursor-first', 1, 'event by event');
    const firsts = cursor.takeFirstOfEach().map((make) => make());
    expect(firsts.map((r) => r.path)).toEqual(['/v1/events/a/holds', '/v1/events/b/holds', '/v1/events/c/holds']);
    expect(firsts.map((r) => r.body)).toEqual(['{"seatIds":["a-s0"]}', '{"seatIds":["b-s0"]}', '{"seatIds":["c-s0"]}']);
    expect(cursor.remaining).toBe(5);
    expect(seatsOf(cursor, 5)).toEqual(['a:a-s1', 'a:a-s2', 'b:b-s1', 'b:b-s2', 'c:c-s1']);
  });
});

describe('measureGrowth on the real API (tiny sizes)', () => {
  let api: ChildServer;
  const groups: GrowthEvent[] = [];
  const lines: string[] = [];

  beforeAll(async () => {
    api = await fixture.startApi();
    // The small size needs two events for its holds, the large one has room in one.
    groups.push({ events: [await fixture.createEvent({ name: 'growth small 1', seats: 12 }), await fixture.createEvent({ name: 'growth small 2', seats: 12 })], createSec: 0 });
    groups.push({ events: [await fixture.createEvent({ name: 'growth large', seats: 60 })], createSec: 0 });
  }, 120_000);
  afterAll(async () => {
    await api?.stop();
    for (const group of groups) for (const e of group.events) await fixture.dropEvent(e.eventId);
  });

  it('when the rounds run, then every hold is a 201, the sizes are visited smallest first then largest first, and the seats held are each event\'s first, the warm-up\'s and the rounds\'', async () => {
    const { rows } = await measureGrowth(api, fixture, groups, {
      concurrency: 4, rounds: 2, holds: 16, warmupHolds: 2, maxDurationMs: 30_000, seatMapRequests: 1,
    }, (line) => lines.push(line));

    expect(rows.map((r) => [r.seats, r.events, r.holds.ok])).toEqual([[12, 2, 16], [60, 1, 16]]);
    for (const row of rows) for (const round of row.rounds) expect([round.ok, round.statusCounts]).toEqual([8, { 201: 8 }]);
    expect(lines.filter((l) => l.includes('round')).map((l) => l.match(/round (\d), (\d+) seats/)!.slice(1).join(':')))
      .toEqual(['1:12', '1:60', '2:60', '2:12']);
    // Each size: a first hold on each of its events, 2 warm-up holds, 16 measured.
    expect(await heldSeats(api.baseUrl, groups[0]!.events)).toBe(2 + 2 + 16);
    expect(await heldSeats(api.baseUrl, groups[1]!.events)).toBe(1 + 2 + 16);
  }, 120_000);
});

async function heldSeats(baseUrl: string, events: BenchEvent[]): Promise<number> {
  let held = 0;
  for (const e of events) {
    const response = await fetch(`${baseUrl}/v1/events/${e.eventId}/seats`);
    const body = (await response.json()) as { seats: Array<{ status: string }> };
    held += body.seats.filter((seat) => seat.status === 'held').length;
  }
  return held;
}
