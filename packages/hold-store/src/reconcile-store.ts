import { masters, type RedisClient } from './redis-client';
import { eventKeys } from './keys';
import { registerScripts, type ScriptName, type ScriptRunner } from './scripts';

/** What one SCAN pass found of an event's keys. */
export interface EventKeyScan {
  eventId: string;
  seatKeys: string[];
  holdRecordKeys: string[];
  rateLimitKeys: string[];
}

export interface TicketCounters {
  cap: string;
  sold: string;
  held: string;
  /** Sum of the quantities of the holds counted in `held`. */
  heldByHolds: number;
}

const REPORT_KEY = 'holdfast:reconcile:last';
const KEY_RE = /^\{ev:([0-9a-f-]{36})\}:(seat|hold|rl):/;

/**
 * The reads and compare-and-set repairs reconciliation needs. Every repair is
 * conditional on what was read, so a hold or confirm racing it wins.
 */
export class ReconcileStore {
  private readonly run: Record<ScriptName, ScriptRunner>;

  constructor(readonly redis: RedisClient) {
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
    for await (const batch of this.scanKeys('{ev:*')) {
      for (const key of batch) {
        const ready = /^\{ev:([0-9a-f-]{36})\}:ready$/.exec(key);
        if (ready) {
          primed.add(ready[1]!);
          continue;
        }
        const m = KEY_RE.exec(key);
        if (!m) continue;
        let e = keys.get(m[1]!);
        if (!e) keys.set(m[1]!, (e = { eventId: m[1]!, seatKeys: [], holdRecordKeys: [], rateLimitKeys: [] }));
        if (m[2] === 'seat') e.seatKeys.push(key);
        else if (m[2] === 'hold') e.holdRecordKeys.push(key);
        else e.rateLimitKeys.push(key);
      }
    }
    return { primed, keys };
  }

  /** Events whose outbox stream still has entries (holds not yet persisted). */
  async eventsWithOutbox(): Promise<string[]> {
    const out: string[] = [];
    for await (const batch of this.scanKeys('{ev:*}:outbox')) {
      for (const key of batch) {
        const m = /^\{ev:([0-9a-f-]{36})\}:outbox$/.exec(key);
        if (m && (await this.redis.xlen(key)) > 0) out.push(m[1]!);
      }
    }
    return out;
  }

  /** Adds to a process-wide statistic kept in Redis (shared by the API's and worker's /metrics). */
  async addStat(name: string, by: number): Promise<void> {
    await this.redis.incrby(`holdfast:stats:${name}`, by);
  }

  async readStat(name: string): Promise<number> {
    return Number((await this.redis.get(`holdfast:stats:${name}`)) ?? 0);
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

  /** Seats among these with an entry in the held zset (whatever its score). */
  async heldEntries(eventId: string, seatIds: string[]): Promise<string[]> {
    if (!seatIds.length) return [];
    const scores = await this.redis.zmscore(eventKeys(eventId).held, ...seatIds);
    return seatIds.filter((_, i) => scores[i] !== null);
  }

  async removeHeldEntries(eventId: string, seatIds: string[]): Promise<void> {
    if (seatIds.length) await this.redis.zrem(eventKeys(eventId).held, ...seatIds);
  }

  /** Gives the seat key a TTL (ms > 0) or removes it (ms = 0), only while `owner` still has it (and no confirm claims it). */
  async fixSeatKey(eventId: string, seatId: string, owner: string, ms: number): Promise<boolean> {
    const k = eventKeys(eventId);
    const r = await this.run.fixSeatKey([k.seat(seatId), k.held, k.claim(owner), k.free, k.seatIndex, k.sold], [owner, seatId, ms]);
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

  /** Remaining TTL (ms) of each key: -1 when it has none, -2 when it is gone. */
  async ttls(keys: string[]): Promise<number[]> {
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

  /** Sets a TTL on a key only when it has none (PEXPIRE NX). */
  async expireIfPersistent(key: string, ms: number): Promise<boolean> {
    return (await this.redis.call('PEXPIRE', key, ms, 'NX')) === 1;
  }

  async saveReport(json: string): Promise<void> {
    await this.redis.set(REPORT_KEY, json);
  }

  async lastReport(): Promise<string | null> {
    return this.redis.get(REPORT_KEY);
  }
}
