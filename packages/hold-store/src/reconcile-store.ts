import { masters, type RedisClient } from './redis-client';
import { eventKeyPattern, eventKeys, globalKeys, parseEventKey } from './keys';
import { registerScripts, type ScriptName, type ScriptRunner } from './scripts';
import { translateErrorsOf } from './store-errors';
import { HOLD_RECORD_TTL_MS, RATE_LIMIT_WINDOW_MS } from './ttls';

/** What one SCAN pass found of an event's keys that must expire by themselves. */
export interface EventKeyScan {
  eventId: string;
  /** Seats with a seat key (a lease). */
  seatIds: string[];
  /** Holds with a record. */
  holdIds: string[];
  /** Customers with a rate-limit window. */
  rateLimitCustomerIds: string[];
}

/** A key reconciliation gave back its TTL: a hold's record or a customer's rate-limit window. */
export interface KeyGivenTtl {
  kind: 'hold record' | 'rate-limit window';
  /** The hold's or the customer's id. */
  id: string;
  ttlMs: number;
}

export interface TicketCounters {
  cap: string;
  sold: string;
  held: string;
  /** Sum of the quantities of the holds counted in `held`. */
  heldByHolds: number;
}

/** Reconciliation looks at the events PostgreSQL can have: ids that are UUIDs. */
const EVENT_ID = /^[0-9a-f-]{36}$/;

/**
 * The reads and compare-and-set repairs reconciliation needs. Every repair is
 * conditional on what was read, so a hold or confirm racing it wins.
 */
export class ReconcileStore {
  private readonly run: Record<ScriptName, ScriptRunner>;

  constructor(private readonly redis: RedisClient) {
    this.run = registerScripts(redis);
  }

  /** SCAN over every master (the one node, or each master of a cluster). */
  private async *scanKeys(match: string): AsyncGenerator<string[]> {
    for (const node of masters(this.redis)) {
      let cursor = '0';
      do {
        const [next, batch] = await node.scan(cursor, 'MATCH', match, 'COUNT', 2000);
        cursor = next;
        yield batch;
      } while (cursor !== '0');
    }
  }

  /** One SCAN pass over every event's keys, grouped by event: the primed events and their leases. */
  async scanEvents(): Promise<{ primed: Set<string>; keys: Map<string, EventKeyScan> }> {
    const primed = new Set<string>();
    const keys = new Map<string, EventKeyScan>();
    for await (const batch of this.scanKeys(eventKeyPattern('*'))) {
      for (const key of batch) {
        const parsed = parseEventKey(key);
        if (!parsed || !EVENT_ID.test(parsed.eventId)) continue;
        const { eventId } = parsed;
        if (parsed.kind === 'ready') {
          primed.add(eventId);
          continue;
        }
        if (parsed.kind !== 'seat' && parsed.kind !== 'hold' && parsed.kind !== 'rateLimit') continue;
        let e = keys.get(eventId);
        if (!e) keys.set(eventId, (e = { eventId, seatIds: [], holdIds: [], rateLimitCustomerIds: [] }));
        if (parsed.kind === 'seat') e.seatIds.push(parsed.id);
        else if (parsed.kind === 'hold') e.holdIds.push(parsed.id);
        else e.rateLimitCustomerIds.push(parsed.id);
      }
    }
    return { primed, keys };
  }

  /** Events whose outbox stream still has entries (holds not yet persisted). */
  async eventsWithOutbox(): Promise<string[]> {
    const out: string[] = [];
    for await (const batch of this.scanKeys(eventKeyPattern('*', 'outbox'))) {
      for (const key of batch) {
        const parsed = parseEventKey(key);
        if (parsed?.kind === 'outbox' && EVENT_ID.test(parsed.eventId) && (await this.redis.xlen(key)) > 0) out.push(parsed.eventId);
      }
    }
    return out;
  }

  /** Adds to a process-wide statistic kept in Redis (shared by the API's and worker's /metrics). */
  async addStat(name: string, by: number): Promise<void> {
    await this.redis.incrby(globalKeys.stat(name), by);
  }

  async readStat(name: string): Promise<number> {
    return Number((await this.redis.get(globalKeys.stat(name))) ?? 0);
  }

  async soldSeats(eventId: string): Promise<Set<string>> {
    return new Set(await this.redis.smembers(eventKeys(eventId).sold));
  }

  async addSold(eventId: string, seatIds: string[]): Promise<void> {
    if (!seatIds.length) return;
    const k = eventKeys(eventId);
    // A sold seat leaves the free set in the same step.
    const res = await this.redis.multi().sadd(k.sold, ...seatIds).zrem(k.free, ...seatIds).exec();
    for (const [err] of res ?? []) if (err) throw err;
  }

  async removeSold(eventId: string, seatIds: string[]): Promise<void> {
    if (seatIds.length) await this.redis.srem(eventKeys(eventId).sold, ...seatIds);
  }

  /** Owner (hold id) and remaining TTL (ms; -1 none, -2 gone) of the given seats' keys. */
  async seatLeases(eventId: string, seatIds: string[]): Promise<Map<string, { owner: string | null; ttlMs: number }>> {
    const k = eventKeys(eventId);
    const out = new Map<string, { owner: string | null; ttlMs: number }>();
    for (let i = 0; i < seatIds.length; i += 1000) {
      const chunk = seatIds.slice(i, i + 1000);
      const p = this.redis.pipeline();
      for (const id of chunk) p.get(k.seat(id)).pttl(k.seat(id));
      const res = (await p.exec()) ?? [];
      chunk.forEach((id, j) => {
        const [e1, owner] = res[2 * j]!;
        const [e2, ttl] = res[2 * j + 1]!;
        if (e1 || e2) throw e1 ?? e2;
        out.set(id, { owner: (owner as string | null) ?? null, ttlMs: Number(ttl) });
      });
    }
    return out;
  }

  /**
   * The status each hold's record in Redis reads ('active', or an ended hold's
   * tombstone: 'released', 'expired', 'confirmed'), null when Redis has no record.
   */
  async holdStatuses(eventId: string, holdIds: string[]): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    if (!holdIds.length) return out;
    const k = eventKeys(eventId);
    const p = this.redis.pipeline();
    for (const id of holdIds) p.hget(k.hold(id), 'status');
    const res = (await p.exec()) ?? [];
    holdIds.forEach((id, i) => {
      const [err, status] = res[i]!;
      if (err) throw err;
      out.set(id, (status as string | null) ?? null);
    });
    return out;
  }

  /** Seats among these with an entry in the held zset (whatever its score). */
  async heldEntries(eventId: string, seatIds: string[]): Promise<string[]> {
    if (!seatIds.length) return [];
    const scores = await this.redis.zmscore(eventKeys(eventId).held, ...seatIds);
    return seatIds.filter((_, i) => scores[i] !== null);
  }

  async removeHeldEntries(eventId: string, seatIds: string[]): Promise<void> {
    if (seatIds.length) await this.redis.zrem(eventKeys(eventId).held, ...seatIds);
  }

  /**
   * Gives the seat key a TTL (ms > 0) or removes it (ms = 0), only while `owner`
   * still has it (and no confirm claims it), and with `onlySold` only while the
   * seat is in the sold set.
   */
  async fixSeatKey(eventId: string, seatId: string, owner: string, ms: number, onlySold = false): Promise<boolean> {
    const k = eventKeys(eventId);
    const r = await this.run.fixSeatKey([k.seat(seatId), k.held, k.claim(owner), k.free, k.seatIndex, k.sold], [owner, seatId, ms, onlySold ? 'sold' : '']);
    return Number(r) === 1;
  }

  /** Whether each hold has its quantity entry in the ticket type's hold hash. */
  async ticketHoldEntries(eventId: string, holds: { holdId: string; ticketTypeId: string }[]): Promise<boolean[]> {
    if (!holds.length) return [];
    const k = eventKeys(eventId);
    const p = this.redis.pipeline();
    for (const h of holds) p.hexists(k.ticketTypeHolds(h.ticketTypeId), h.holdId);
    const res = (await p.exec()) ?? [];
    return res.map(([err, v]) => {
      if (err) throw err;
      return Number(v) === 1;
    });
  }

  async ticketCounters(eventId: string, ticketTypeId: string): Promise<TicketCounters> {
    const k = eventKeys(eventId);
    const res = (await this.redis
      .pipeline()
      .hmget(k.ticketType(ticketTypeId), 'cap', 'sold', 'held')
      .hvals(k.ticketTypeHolds(ticketTypeId))
      .exec()) as [Error | null, unknown][] | null;
    if (!res) throw new Error('ticket counter read was aborted');
    const [[e1, cur], [e2, qty]] = res as [[Error | null, unknown], [Error | null, unknown]];
    if (e1 || e2) throw e1 ?? e2;
    const [cap, sold, held] = cur as (string | null)[];
    return {
      cap: cap ?? '', sold: sold ?? '', held: held ?? '',
      heldByHolds: (qty as string[]).reduce((t, q) => t + Number(q), 0),
    };
  }

  /** Ids of the holds counted in a ticket type's held tickets (live or not yet pruned). */
  async ticketHoldIds(eventId: string, ticketTypeId: string): Promise<string[]> {
    return this.redis.hkeys(eventKeys(eventId).ticketTypeHolds(ticketTypeId));
  }

  /**
   * Rewrites a ticket type's counters in one step on Redis's clock (see
   * repair-ticket-counters-3.lua): cap and sold from PostgreSQL, sold less the
   * holds PostgreSQL confirmed that Redis still holds, held from the live holds.
   * Null when the ticket type is not in Redis.
   */
  async repairTicketCounters(
    eventId: string, ticketTypeId: string, pg: { capacity: number; sold: number; confirmedHoldIds: string[] },
  ): Promise<{ written: boolean; before: Omit<TicketCounters, 'heldByHolds'>; after: { cap: number; sold: number; held: number } } | null> {
    const k = eventKeys(eventId);
    const r = await this.run.repairTicketCounters(
      [k.ticketType(ticketTypeId), k.ticketTypeExpiry(ticketTypeId), k.ticketTypeHolds(ticketTypeId)],
      [pg.capacity, pg.sold, ...pg.confirmedHoldIds],
    );
    if (Number(r[0]) === -1) return null;
    return {
      written: Number(r[0]) === 1,
      before: { cap: String(r[1]), sold: String(r[2]), held: String(r[3]) },
      after: { cap: Number(r[4]), sold: Number(r[5]), held: Number(r[6]) },
    };
  }

  /** Tickets bought per customer as Redis counts them (the limit's share of past orders). */
  async boughtCounts(eventId: string): Promise<Map<string, string>> {
    return new Map(Object.entries(await this.redis.hgetall(eventKeys(eventId).bought)));
  }

  /**
   * Writes each customer's bought count from PostgreSQL's (less recent orders
   * whose end-hold has not reached Redis yet), compare-and-set against the
   * count read before PostgreSQL (see repair-bought-2.lua). Answers the counts written.
   */
  async repairBought(
    eventId: string,
    customers: { customerId: string; seen: string | null; quantity: number; recent: { holdId: string; quantity: number }[] }[],
  ): Promise<{ customerId: string; before: number; after: number }[]> {
    const k = eventKeys(eventId);
    const out: { customerId: string; before: number; after: number }[] = [];
    for (let i = 0; i < customers.length; i += 500) {
      const chunk = customers.slice(i, i + 500);
      const keys = [k.ready, k.bought, ...chunk.flatMap((c) => c.recent.map((o) => k.hold(o.holdId)))];
      const args: (string | number)[] = [chunk.length];
      for (const c of chunk) args.push(c.customerId, c.seen ?? '', c.quantity, c.recent.length, ...c.recent.map((o) => o.quantity));
      const r = await this.run.repairBought(keys, args);
      for (let j = 0; j < r.length; j += 3) out.push({ customerId: String(r[j]), before: Number(r[j + 1]), after: Number(r[j + 2]) });
    }
    return out;
  }

  /**
   * The event's hold records and rate-limit windows (as a scan found them) that
   * have no TTL get the one they are written with (HOLD_RECORD_TTL_MS,
   * RATE_LIMIT_WINDOW_MS), only while they still have none (PEXPIRE NX).
   * Answers the keys given one.
   */
  async expireKeysWithoutTtl(scan: EventKeyScan): Promise<KeyGivenTtl[]> {
    const k = eventKeys(scan.eventId);
    const candidates = [
      ...scan.holdIds.map((id) => ({ key: k.hold(id), given: { kind: 'hold record', id, ttlMs: HOLD_RECORD_TTL_MS } as const })),
      ...scan.rateLimitCustomerIds.map((id) => ({ key: k.rateLimit(id), given: { kind: 'rate-limit window', id, ttlMs: RATE_LIMIT_WINDOW_MS } as const })),
    ];
    const ttls = await this.ttls(candidates.map((c) => c.key));
    const out: KeyGivenTtl[] = [];
    for (let i = 0; i < candidates.length; i++) {
      if (ttls[i] !== -1) continue;
      const { key, given } = candidates[i]!;
      if ((await this.redis.call('PEXPIRE', key, given.ttlMs, 'NX')) === 1) out.push(given);
    }
    return out;
  }

  /** Remaining TTL (ms) of each key: -1 when it has none, -2 when it is gone. */
  private async ttls(keys: string[]): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < keys.length; i += 1000) {
      const p = this.redis.pipeline();
      for (const key of keys.slice(i, i + 1000)) p.pttl(key);
      for (const [err, v] of (await p.exec()) ?? []) {
        if (err) throw err;
        out.push(Number(v));
      }
    }
    return out;
  }

  async saveReport(json: string): Promise<void> {
    await this.redis.set(globalKeys.reconcileReport, json);
  }

  async lastReport(): Promise<string | null> {
    return this.redis.get(globalKeys.reconcileReport);
  }
}

translateErrorsOf(ReconcileStore);
