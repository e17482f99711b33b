// Every Lua script of the lua folder runs on a real Redis Cluster (3 masters,
// 3 replicas) with its keys in one slot. The folder is read, not a list: a new
// script must be registered, and one the scenario below does not reach is still
// run on the cluster with keys of one slot and must not meet a cluster error.
import { once } from 'node:events';
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { Cluster } from 'ioredis';
import { cli, keySlot, RedisCluster, sleepUntil, waitFor } from '@holdfast/test-kit';
import {
  ChangeFeed, createRedisClient, eventKeys, HoldStore, IdempotencyStore, ReconcileStore, scriptFiles, scriptSource,
  type Change, type ScriptName,
} from '../src';

const LUA_DIR = path.join(__dirname, '..', 'src', 'lua');
const CLUSTER_ERROR = /CROSSSLOT|non local key|MOVED|ASK |cross slot|undeclared|not hash to the same slot/i;

let cluster: RedisCluster;
let redis: Cluster;
let subscriber: Cluster;

beforeAll(async () => {
  cluster = await RedisCluster.start();
  const target = { redisUrl: '', redisClusterNodes: cluster.nodes };
  redis = createRedisClient(target, { maxRetriesPerRequest: 2 }) as Cluster;
  subscriber = createRedisClient(target, { subscriber: true }) as Cluster;
  // The change feed refuses a listener while its connection is not ready (503 at once): wait for it.
  if (subscriber.status !== 'ready') await once(subscriber, 'ready');
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  subscriber?.disconnect();
  await cluster?.stop();
});

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

/** Scripts (by file) each master has run since the cluster started (its script cache). */
async function scriptsRun(): Promise<Set<string>> {
  const files = scriptFiles();
  const ran = new Set<string>();
  for (const port of await cluster.masters()) {
    for (const [name, file] of Object.entries(files) as [ScriptName, string][]) {
      const reply = await cli(port, 'SCRIPT', 'EXISTS', sha1(scriptSource(name, true)));
      if (reply.trim() === '1') ran.add(file);
    }
  }
  return ran;
}

test('when the lua folder is read, then every script file is registered and named <name>-<keys>.lua', () => {
  const files = readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua'));
  expect(files.length).toBeGreaterThan(0);
  const registered = new Set(Object.values(scriptFiles()));
  for (const f of files) {
    expect(f).toMatch(/^[a-z-]+-\d+\.lua$/);
    expect(registered.has(f)).toBe(true);
  }
});

test('when every script runs on a cluster with an event\'s keys, then each runs in the event\'s slot and the change feed hears the shard', async () => {
  const eventId = randomUUID();
  const k = eventKeys(eventId);
  const store = new HoldStore(redis);
  const rs = new ReconcileStore(redis);
  const idem = new IdempotencyStore(redis);
  const feed = new ChangeFeed(subscriber);
  const heard: Change[] = [];
  const stop = await feed.listen(eventId, (c) => heard.push(c));
  try {
    const seats = ['s1', 's2', 's3'];
    const tt = 'tt1';
    expect(await store.primeEvent({
      eventId, ticketTypes: [{ id: tt, capacity: 10, sold: 0 }], bought: [], soldSeatIds: [],
    })).toBe(true);
    // Best available: the free-seat index, then the best pair of it.
    const indexed = ['b1', 'b2', 'b3'].map((id, i) => ({ id, rank: i + 1, rowId: 1, number: i + 1, priceCents: 1000, label: `B-1-${i + 1}` }));
    await store.syncFreeSeats(eventId, indexed, { tiers: [{ tier: 'best', lo: 1, hi: 3 }], seatCount: 3 });
    const best = await store.holdBest({
      eventId, holdId: 'h4', customerId: 'c4', ttlMs: 60_000, maxPerCustomer: 10, rateLimit: 100, rateWindowMs: 60_000,
      outboxMaxPending: 100_000, tier: 'best', quantity: 2, currency: 'EUR',
    });
    expect(best).toMatchObject({ kind: 'ok', seatIds: ['b1', 'b2'] });
    const base = { eventId, customerId: 'c1', ttlMs: 60_000, maxPerCustomer: 10, rateLimit: 100, rateWindowMs: 60_000, outboxMaxPending: 100_000 };
    expect((await store.holdSeats({ ...base, holdId: 'h1', candidates: [{ seatIds: seats.slice(0, 2), recordJson: '{}' }] })).kind).toBe('ok');
    // h2's lease is short: its expiry below ends it only once it is due on Redis's clock.
    const h2Due = Date.now() + 1500;
    expect((await store.holdTickets({ ...base, ttlMs: 1500, holdId: 'h2', ticketTypeId: tt, quantity: 2, recordJson: '{}' })).kind).toBe('ok');
    expect(await store.countHoldRequest({ eventId, customerId: 'c1', rateLimit: 100, rateWindowMs: 60_000 })).toBeNull();
    expect(await store.readAvailability(eventId, [tt])).toEqual(new Map([[tt, 8]]));
    expect((await store.extendHold({
      eventId, holdId: 'h1', customerId: 'c1', ttlMs: 120_000, latestExpiresAtMs: Date.now() + 600_000,
      seatIds: seats.slice(0, 2), ticketTypeId: null, quantity: 2,
    })).kind).toBe('ok');
    expect((await store.claimHold({
      eventId, holdId: 'h1', customerId: 'c1', token: 't1', leaseMs: 30_000, seatIds: seats.slice(0, 2), ticketTypeId: null, quantity: 2, maxPerCustomer: 10,
    })).kind).toBe('live');
    expect((await store.endHold({
      eventId, holdId: 'h1', customerId: 'c1', mode: 'confirmed', seatIds: seats.slice(0, 2), ticketTypeId: null, quantity: 2, claimToken: 't1',
    })).applied).toBe(true);
    await sleepUntil(h2Due, 100);
    expect((await store.endHold({
      eventId, holdId: 'h2', customerId: 'c1', mode: 'expired', seatIds: [], ticketTypeId: tt, quantity: 2,
    })).applied).toBe(true);
    expect((await store.retakeHold({
      eventId, holdId: 'h2', customerId: 'c1', leaseMs: 30_000, seatIds: [], ticketTypeId: tt, quantity: 2, maxPerCustomer: 10,
    })).kind).toBe('ok');
    // c1 bought 2 (h1 confirmed): a count that drifted is written back from PostgreSQL's.
    await redis.hdel(k.bought, 'c1');
    expect(await rs.repairBought(eventId, [{ customerId: 'c1', seen: null, quantity: 2, recent: [{ holdId: 'h1', quantity: 2 }] }]))
      .toEqual([{ customerId: 'c1', before: 0, after: 2 }]);
    await redis.set(k.seat('s3'), 'h3');
    expect(await rs.fixSeatKey(eventId, 's3', 'h3', 5000)).toBe(true);
    expect((await rs.repairTicketCounters(eventId, tt, { capacity: 10, sold: 0, confirmedHoldIds: [] }))?.after).toEqual({ cap: 10, sold: 0, held: 2 });
    const claim = await idem.begin('p1', `key-${eventId}`, 'fp');
    expect(claim.kind).toBe('started');
    expect(await idem.complete('p1', `key-${eventId}`, (claim as { token: string }).token, 201, '{}')).toBe(true);
    // A confirm's read and claim in one script (keys built from the record, in the event's slot), then
    // a batch's confirmed ends in one script call.
    const seatRecord = JSON.stringify({ eventId, customerId: 'c5', items: [{ seatId: 's5', label: 'A-1', tier: 'A', priceCents: 1000, quantity: 1 }], totalCents: 1000, currency: 'EUR' });
    const gaRecord = JSON.stringify({ eventId, customerId: 'c6', items: [{ ticketTypeId: tt, name: 'GA', priceCents: 500, quantity: 1 }], totalCents: 500, currency: 'EUR' });
    expect((await store.holdSeats({ ...base, customerId: 'c5', holdId: 'h5', candidates: [{ seatIds: ['s5'], recordJson: seatRecord }] })).kind).toBe('ok');
    expect((await store.holdTickets({ ...base, customerId: 'c6', holdId: 'h6', ticketTypeId: tt, quantity: 1, recordJson: gaRecord })).kind).toBe('ok');
    for (const holdId of ['h5', 'h6']) {
      expect(await store.readClaimHold({ eventId, holdId, token: `t-${holdId}`, leaseMs: 30_000, maxPerCustomer: 10 }))
        .toMatchObject({ kind: 'record', claim: { kind: 'live' } });
    }
    expect(await store.endConfirmedHolds(eventId, [
      { eventId, holdId: 'h5', customerId: 'c5', seatIds: ['s5'], ticketTypeId: null, quantity: 1 },
      { eventId, holdId: 'h6', customerId: 'c6', seatIds: [], ticketTypeId: tt, quantity: 1 },
    ])).toEqual([{ applied: true, freed: 1, offers: 0 }, { applied: true, freed: 0, offers: 0 }]);

    // Every key of the event is on the master of its one slot.
    const master = await cluster.masterOfSlot(keySlot(k.ready));
    const keys = (await cli(master, '--scan', '--pattern', `{ev:${eventId}}*`)).split('\n').filter(Boolean);
    expect(keys).toEqual(expect.arrayContaining([k.ready, k.sold, k.hold('h1'), k.hold('h2'), k.outbox, k.ticketType(tt)]));

    // Sharded pub/sub: the seat changes came to this process's shard subscriber.
    await waitFor('the sold seat change', () => heard.some((c) => c.type === 'seat' && c.status === 'sold'), { timeoutMs: 2500, intervalMs: 50 });
    expect(heard).toEqual(expect.arrayContaining([
      { type: 'seat', seatId: 's1', status: 'held' }, { type: 'seat', seatId: 's1', status: 'sold' },
      { type: 'seat', seatId: 's5', status: 'sold' },
    ]));

    // Each script file ran (the scenario above), or runs now with keys of one slot.
    const ran = await scriptsRun();
    const files = readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua'));
    const generic: string[] = [];
    for (const [name, file] of Object.entries(scriptFiles()) as [ScriptName, string][]) {
      if (ran.has(file)) continue;
      generic.push(file);
      const numKeys = Number(/-(\d+)\.lua$/.exec(file)![1]);
      const keysOfOneSlot = Array.from({ length: numKeys }, (_, i) => `{ev:${eventId}}:probe:${i}`);
      const err = await redis.eval(scriptSource(name, true), numKeys, ...keysOfOneSlot, ...Array(12).fill('1'))
        .then(() => null, (e: Error) => e);
      if (err) expect(err.message).not.toMatch(CLUSTER_ERROR);
    }
    expect(ran.size + generic.length).toBe(files.length);
    // The scenario reaches every script there was when it was written.
    expect(ran.size).toBeGreaterThanOrEqual(15);
  } finally {
    stop();
    for (const port of await cluster.masters()) {
      const keys = (await cli(port, '--scan', '--pattern', `{ev:${eventId}}*`)).split('\n').filter(Boolean);
      for (const key of keys) await redis.del(key);
    }
  }
});
