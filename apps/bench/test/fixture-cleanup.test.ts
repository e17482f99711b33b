import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { newHoldId } from '@holdfast/domain';
import { EXPIRY_QUEUE, redisOptionsFromUrl, scheduleExpiries, scheduleExpiry } from '@holdfast/jobs';

import { openHoldfastFixture, type HoldfastFixture } from '../src/holdfast/holdfast.fixture';

// The fixture on the test database and Redis of this run (not the bench's own).
process.env.BENCH_API_DATABASE_URL = process.env.DATABASE_URL;
process.env.BENCH_API_REDIS_URL = process.env.REDIS_URL;

let fixture: HoldfastFixture;
let queue: Queue;

beforeAll(async () => {
  fixture = await openHoldfastFixture();
  // The API's expiry queue, as the API makes it on one Redis.
  queue = new Queue(EXPIRY_QUEUE, { connection: redisOptionsFromUrl(process.env.REDIS_URL!) });
});
afterAll(async () => {
  await queue?.close();
  await fixture?.close();
});

test('when the bench drops an event, then the expiry jobs the API scheduled for its holds go with it, and another event\'s jobs stay', async () => {
  const event = await fixture.createEvent({ name: 'bench fixture cleanup', seats: 2 });
  const other = randomUUID();
  const later = new Date(Date.now() + 600_000);
  const [a, b, extended, elsewhere] = [newHoldId(event.eventId), newHoldId(event.eventId), newHoldId(event.eventId), newHoldId(other)];
  // A batch's job (named after its first hold), a hold's own job (an extended hold), another event's batch.
  await scheduleExpiries(queue, [{ id: a, expiresAt: later }, { id: b, expiresAt: later }]);
  await scheduleExpiry(queue, { id: extended, expiresAt: later });
  await scheduleExpiries(queue, [{ id: elsewhere, expiresAt: later }]);
  const ids = [`exp_${a}_2`, extended, `exp_${elsewhere}_1`];
  try {
    expect(await Promise.all(ids.map(async (id) => (await queue.getJobState(id))))).toEqual(['delayed', 'delayed', 'delayed']);

    await fixture.dropEvent(event.eventId);

    expect(await Promise.all(ids.map(async (id) => (await queue.getJobState(id))))).toEqual(['unknown', 'unknown', 'delayed']);
    const delayed = await queue.getDelayed(0, -1);
    expect(delayed.filter((job) => job.id?.includes(event.eventId.replace(/-/g, '')))).toEqual([]);
  } finally {
    await queue.remove(`exp_${elsewhere}_1`);
  }
});
