import { randomBytes, randomInt } from 'node:crypto';
import { eventKeys } from './keys';
import type { RedisClient } from './redis-client';
import type { ScriptName, ScriptRunner } from './scripts';
import { translateErrorsOf } from './store-errors';

/**
 * An event's waiting room settings as the scripts need them (issue 29): the
 * event's own, which an admin's overrides (pause, rate, most active) in Redis
 * take precedence over.
 */
export interface QueueRoom {
  eventId: string;
  admitPerMinute: number;
  maxActive: number;
  passMs: number;
  /** The sale's opening, ms since the epoch; null: open already. */
  salesStartMs: number | null;
}

/** What one call's lazy admission did (for the metrics), and the room's numbers after it. */
export interface QueueTick {
  nowMs: number;
  admitted: number;
  endedTimeout: number;
  endedHoldExpired: number;
  /** How long each place admitted by this call waited, ms. */
  waitsMs: number[];
  waiting: number;
  active: number;
  admittedTotal: number;
  admitPerMinute: number;
  maxActive: number;
  paused: boolean;
  /** Whole and part admissions the bucket holds now. */
  tokens: number;
  /** Places admitted a minute, measured over the last window of 10 s or more while admitting; null before any. */
  measuredPerMinute: number | null;
}

export type QueueState = 'waiting' | 'admitted' | 'ended' | 'none';

export interface QueueStanding extends QueueTick {
  state: QueueState;
  /** 1 for the next place to be admitted; 0 when not waiting. */
  position: number;
  /** The pass, when admitted. */
  pass: string | null;
  passExpiresAtMs: number | null;
}

export type JoinResult =
  | ({ kind: 'ok' } & QueueStanding)
  | { kind: 'sales_closed'; nowMs: number }
  | { kind: 'proof_reused' };

/** The prefix every pass of an event starts with: it names the event, so a pass of another event is told apart without Redis. */
export function queuePassPrefix(eventId: string): string {
  return `qp_${eventId}_`;
}

/** The event a pass names, or null when it has not the shape of a pass. */
export function queuePassEvent(pass: string): string | null {
  const m = /^qp_([0-9a-f-]{36})_[0-9a-f]{32}$/.exec(pass);
  return m ? m[1]! : null;
}

function newPass(eventId: string): string {
  return queuePassPrefix(eventId) + randomBytes(16).toString('hex');
}

/** The room's six keys (includes/queue-room.lua) and the arguments every queue script shares. */
function roomArgs(room: QueueRoom) {
  return {
    keys: [...eventKeys(room.eventId).queue],
    start: room.salesStartMs ?? '',
    channel: eventKeys(room.eventId).channel,
  };
}

function tickOf(reply: (string | number)[], at: number, nowMs: number): QueueTick {
  const r = reply.slice(at);
  const waits = String(r[3] ?? '');
  return {
    nowMs,
    admitted: Number(r[0]), endedTimeout: Number(r[1]), endedHoldExpired: Number(r[2]),
    waitsMs: waits ? waits.split(',').map(Number) : [],
    waiting: Number(r[4]), active: Number(r[5]), admittedTotal: Number(r[6]),
    admitPerMinute: Number(r[7]), maxActive: Number(r[8]), paused: Number(r[9]) === 1, tokens: Number(r[10]),
    measuredPerMinute: Number(r[11]) >= 0 ? Number(r[11]) : null,
  };
}

function standingOf(reply: (string | number)[]): QueueStanding {
  const nowMs = Number(reply[1]);
  const pass = String(reply[4] ?? '');
  const ends = String(reply[5] ?? '');
  return {
    ...tickOf(reply, 6, nowMs),
    state: String(reply[2]) as QueueState,
    position: Number(reply[3]),
    pass: pass || null,
    passExpiresAtMs: ends ? Number(ends) : null,
  };
}

/**
 * The waiting rooms, in Redis (includes/queue-room.lua): places, paced
 * admission and passes, each call one script on Redis's clock in the event's
 * hash slot. Admission happens inside every call, and in the API processes' tick of a room with
 * buyers waiting (`tick`, about once a second per room); no worker is on the critical path.
 */
export class QueueStore {
  /**
   * `acknowledged`: with HOLD_REPLICA_ACKS, runs a script whose reply is 'OK' followed by WAIT
   * (ReplicaAckError when too few replicas have it): a place or a pass is told only once kept.
   * A place not acknowledged stays (joining again keeps it); the caller answers 503.
   */
  constructor(
    private readonly run: Record<ScriptName, ScriptRunner>,
    private readonly redis: RedisClient,
    private readonly acknowledged: ((name: ScriptName, keys: string[], args: (string | number)[]) => Promise<(string | number)[]>) | null = null,
  ) {}

  /** Runs a script that tells a customer their place or pass: acknowledged by the replicas when asked for. */
  private told(name: 'queueJoin' | 'queueMe', keys: string[], args: (string | number)[]): Promise<(string | number)[]> {
    return this.acknowledged ? this.acknowledged(name, keys, args) : this.run[name](keys, args);
  }

  /**
   * The pass hold `holdId` was taken with lasts at least until `untilMs` (the hold
   * was extended), while it is the customer's live pass; an ended pass stays ended.
   */
  async extendPass(eventId: string, customerId: string, untilMs: number, holdId: string): Promise<void> {
    const k = eventKeys(eventId);
    await this.run.queueExtendPass([k.queueActive, k.queuePasses], [customerId, untilMs, holdId]);
  }

  /**
   * Joins the customer (one place per customer): a drawn place before the opening,
   * the back of the line after it. `opensMs`: joining opens then (the opening less
   * the pre-queue time); `salesEndMs`: it closes then. `proof`: the proof of work's
   * nonce when the room asks for one, refused if taken before.
   */
  async join(room: QueueRoom & { customerId: string; opensMs: number | null; salesEndMs: number | null; proof: string | null }): Promise<JoinResult> {
    const { keys, start, channel } = roomArgs(room);
    const reply = await this.told('queueJoin', [...keys, eventKeys(room.eventId).queueProofs], [
      room.customerId, room.opensMs ?? '', start, room.salesEndMs ?? '', room.admitPerMinute, room.maxActive, room.passMs,
      channel, newPass(room.eventId), randomInt(0, 2 ** 48 - 1), room.proof === null ? '' : `${room.customerId}:${room.proof}`,
    ]);
    if (reply[0] === 'SALES_CLOSED') return { kind: 'sales_closed', nowMs: Number(reply[1]) };
    if (reply[0] === 'PROOF_REUSED') return { kind: 'proof_reused' };
    return { kind: 'ok', ...standingOf(reply) };
  }

  /** Where the customer stands, after the room's lazy admission. */
  async me(room: QueueRoom & { customerId: string }): Promise<QueueStanding> {
    const { keys, start, channel } = roomArgs(room);
    const reply = await this.told('queueMe', keys, [
      room.customerId, start, room.admitPerMinute, room.maxActive, room.passMs, channel, newPass(room.eventId),
    ]);
    return standingOf(reply);
  }

  /** Ends the customer's pass (confirmed, released): its place goes to the next. */
  async endPass(room: QueueRoom & { customerId: string; holdId: string }): Promise<QueueTick & { ended: boolean }> {
    const { keys, start, channel } = roomArgs(room);
    const reply = await this.run.queueEndPass(keys, [room.customerId, start, room.admitPerMinute, room.maxActive, room.passMs, channel, room.holdId]);
    return { ...tickOf(reply, 3, Number(reply[1])), ended: Number(reply[2]) === 1 };
  }

  /**
   * The room's admission tick (queue-tick): ends the passes whose time is up and admits what the
   * bucket allows, on Redis's clock; run about once a second per room with buyers waiting, by any
   * number of processes (the bucket is in Redis: more callers do not admit more).
   */
  async tick(room: QueueRoom): Promise<QueueTick> {
    const { keys, start, channel } = roomArgs(room);
    const reply = await this.run.queueTick(keys, [start, room.admitPerMinute, room.maxActive, room.passMs, channel]);
    return tickOf(reply, 2, Number(reply[1]));
  }

  /**
   * The room's numbers; with changes, pauses or resumes it, or overrides its rate or its
   * most active passes. `resetOverrides`: the event's settings changed, the admin's overrides of rate and max go.
   */
  async admin(
    room: QueueRoom, change: { admitPerMinute?: number; maxActive?: number; paused?: boolean; resetOverrides?: boolean } = {},
  ): Promise<QueueTick & { medianWaitMs: number | null }> {
    const { keys, start, channel } = roomArgs(room);
    const reply = await this.run.queueAdmin(keys, [
      start, room.admitPerMinute, room.maxActive, room.passMs, channel,
      change.admitPerMinute ?? '', change.maxActive ?? '', change.paused === undefined ? '' : change.paused ? '1' : '0',
      change.resetOverrides ? '1' : '',
    ]);
    const median = Number(reply[2 + 12]);
    return { ...tickOf(reply, 2, Number(reply[1])), medianWaitMs: median >= 0 ? median : null };
  }
}

translateErrorsOf(QueueStore);
