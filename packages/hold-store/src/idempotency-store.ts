import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient } from './redis-client';
import { globalKeys } from './keys';
import { registerScripts, runWhole, type ScriptName, type ScriptRunner } from './scripts';
import { PendingUndos } from './pending-undos';
import { mayHaveRun, translateErrorsOf } from './store-errors';
import { IDEMPOTENCY_TTL_SECONDS } from './ttls';

export type IdempotencyClaim =
  | { kind: 'started'; token: string }
  | { kind: 'mismatch' }
  | { kind: 'running' }
  | { kind: 'done'; status: number; body: string };

/**
 * Idempotency keys in Redis. A key is scoped to its principal (the Redis key is
 * a hash of principal and key, so a long or odd key never becomes a long Redis
 * key). begin claims it with an in-progress marker that lapses after leaseMs, so
 * a process that dies mid-request does not block the key for a day; complete
 * stores the answer for 24 hours; release frees the key for a retry.
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
  async begin(principal: string, key: string, fingerprint: string): Promise<IdempotencyClaim> {
    const token = randomBytes(12).toString('hex');
    const redisKey = IdempotencyStore.redisKey(principal, key);
    let reply: (string | number)[];
    try {
      reply = await this.run.idempotencyBegin([redisKey], [fingerprint, token, this.leaseMs]);
    } catch (err) {
      if (mayHaveRun(err)) this.#release(redisKey, token).catch(() => undefined);
      throw err;
    }
    switch (reply[0]) {
      case 'STARTED':
        return { kind: 'started', token };
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
  release(principal: string, key: string, token: string): Promise<boolean> {
    return this.#release(IdempotencyStore.redisKey(principal, key), token);
  }

  /** The release of `release` and of a claim that may have been written: sent whole, kept if Redis cannot take it. */
  async #release(redisKey: string, token: string): Promise<boolean> {
    const release = () => runWhole(this.redis, 'idempotencyEnd', [redisKey], [token, 'release', 0, '', 0]);
    try {
      return Number(await release()) === 1;
    } catch (err) {
      this.undos.keepAfter(err, `key:${redisKey}`, release, Date.now() + this.leaseMs);
      throw err;
    }
  }
}

translateErrorsOf(IdempotencyStore);
