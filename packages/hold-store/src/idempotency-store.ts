import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient } from './redis-client';
import { globalKeys } from './keys';
import { registerScripts, runWhole, type ScriptName, type ScriptRunner } from './scripts';
import { PendingUndos } from './pending-undos';
import { mayHaveRun, translateErrorsOf } from './store-errors';
import { IDEMPOTENCY_TTL_SECONDS } from './ttls';

/**
 * How long a claim's record is kept when its request never answers: its seed
 * must outlive any hold its request took (a day, as an answer is kept).
 */
const CLAIM_RECORD_TTL_MS = IDEMPOTENCY_TTL_SECONDS * 1000;

export type IdempotencyClaim =
  | {
    kind: 'started'; token: string;
    /**
     * The claim's seed (24 hex digits, fixed for the claim's life): a hold request
     * takes the hold id it names, so a request that takes over the claim finds
     * the hold the one before it may have taken (domain/create-hold.ts).
     */
    seed: string;
    /** An earlier request held this claim and its lease lapsed without an answer (it died, or could not store its answer). */
    takenOver: boolean;
  }
  | { kind: 'mismatch' }
  | { kind: 'running' }
  | { kind: 'done'; status: number; body: string };

/**
 * Idempotency keys in Redis. A key is scoped to its principal (the Redis key is
 * a hash of principal and key, so a long or odd key never becomes a long Redis
 * key). begin claims it with an in-progress marker whose lease lapses after
 * leaseMs, so a process that dies mid-request does not block the key for a day:
 * the next request takes the claim over, with its seed; complete stores the
 * answer for 24 hours; release frees the key for a retry (a claim taken over
 * keeps its seed, so that retry still finds the earlier request's hold).
 */
export class IdempotencyStore {
  private readonly run: Record<ScriptName, ScriptRunner>;

  constructor(
    private readonly redis: RedisClient, private readonly leaseMs = 60_000,
    private readonly undos = new PendingUndos(redis),
  ) {
    this.run = registerScripts(redis);
  }

  static redisKey(principal: string, key: string): string {
    return globalKeys.idempotency(createHash('sha256').update(principal).update('\n').update(key).digest('hex'));
  }

  /**
   * Claims the key. A claim that may have been written though its call failed
   * (no answer in time, or its connection lost after it was sent: the request
   * answers 503) would hold the key for leaseMs: it is released with its token,
   * which is known before the call, at once on the same connection (so after
   * it), or once Redis can be reached again (PendingUndos).
   */
  async begin(principal: string, key: string, fingerprint: string, leaseMs = this.leaseMs): Promise<IdempotencyClaim> {
    const fresh = randomBytes(24).toString('hex');
    const token = fresh.slice(0, 24);
    const redisKey = IdempotencyStore.redisKey(principal, key);
    let reply: (string | number)[];
    try {
      reply = await this.run.idempotencyBegin([redisKey], [fingerprint, token, leaseMs, fresh.slice(24), CLAIM_RECORD_TTL_MS]);
    } catch (err) {
      if (mayHaveRun(err)) this.#release(redisKey, token, leaseMs).catch(() => undefined);
      throw err;
    }
    switch (reply[0]) {
      case 'STARTED':
        return { kind: 'started', token, seed: String(reply[1]), takenOver: Number(reply[2]) === 1 };
      case 'MISMATCH':
        return { kind: 'mismatch' };
      case 'RUNNING':
        return { kind: 'running' };
      case 'DONE':
        return { kind: 'done', status: Number(reply[1]), body: String(reply[2] ?? '') };
      default:
        throw new Error(`unexpected idempotency script reply ${String(reply[0])}`);
    }
  }

  async complete(principal: string, key: string, token: string, status: number, body: string): Promise<boolean> {
    const r = await this.run.idempotencyEnd([IdempotencyStore.redisKey(principal, key)], [token, 'complete', status, body, IDEMPOTENCY_TTL_SECONDS]);
    return Number(r) === 1;
  }

  /**
   * Frees the key for a retry (the request answered what is not stored, a 5xx).
   * Sent whole (runWhole): after a restart Redis may not have the script cached
   * yet, and a NOSCRIPT answer that comes after the call gave up would leave the
   * key in progress. If Redis cannot take it now, it is kept and sent once Redis
   * can be reached (PendingUndos), so the key is not "in progress" for leaseMs.
   */
  release(principal: string, key: string, token: string, leaseMs = this.leaseMs): Promise<boolean> {
    return this.#release(IdempotencyStore.redisKey(principal, key), token, leaseMs);
  }

  /**
   * Gives the claim a new seed (the hold its seed names has ended: a request
   * that took the claim over holds afresh). The new seed, or null when the
   * claim is no longer this token's.
   */
  async reseed(principal: string, key: string, token: string): Promise<string | null> {
    const seed = randomBytes(12).toString('hex');
    const r = await this.run.idempotencyEnd([IdempotencyStore.redisKey(principal, key)], [token, 'reseed', seed, '', 0]);
    return Number(r) === 1 ? seed : null;
  }

  /** The release of `release` and of a claim that may have been written: sent whole, kept if Redis cannot take it. */
  async #release(redisKey: string, token: string, leaseMs: number): Promise<boolean> {
    const release = () => runWhole(this.redis, 'idempotencyEnd', [redisKey], [token, 'release', 0, '', 0]);
    try {
      return Number(await release()) === 1;
    } catch (err) {
      this.undos.keepAfter(err, `key:${redisKey}`, release, Date.now() + leaseMs);
      throw err;
    }
  }
}

translateErrorsOf(IdempotencyStore);
